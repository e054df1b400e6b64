package dev.verificationservice.store.dynamodb;

import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;

/**
 * Adds up the capacity units DynamoDB reports ({@code ReturnConsumedCapacity=TOTAL}: the table and its indexes)
 * per access pattern, so that a benchmark can say what each pattern costs, and hands every report to its
 * {@linkplain #addListener listeners} (the server turns them into a Prometheus counter). Thread-safe; recording
 * is a few atomic adds.
 *
 * <p>It adds up what DynamoDB bills, not only what the engine reports: a failed conditional write and a
 * cancelled transaction report no ConsumedCapacity, yet DynamoDB bills a failed condition on the size of the
 * item it read, so {@link #recordFailedWrite} charges 1 write unit per failed write and per action of a
 * cancelled transaction. That is exact while every item is under 1 KB, which the store keeps to (no item grows
 * with the requests it counts); a larger item would make it an under-count by its extra started kilobytes.
 */
public final class ConsumedCapacityRecorder {

    /** Whether a request read or wrote: read and write units are billed apart. */
    public enum Kind {
        READ, WRITE;

        /** As a metric tag: {@code read}, {@code write}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What one access pattern has consumed so far. */
    public record Usage(long requests, double capacityUnits) {
    }

    /** Told of every report that carries units, on the thread that made the request. */
    @FunctionalInterface
    public interface Listener {
        void consumed(AccessPattern pattern, Kind kind, double capacityUnits);
    }

    private final Map<AccessPattern, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<AccessPattern, DoubleAdder> units = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void record(AccessPattern pattern, Kind kind, ConsumedCapacity capacity) {
        record(pattern, kind, capacity == null ? List.of() : List.of(capacity));
    }

    void record(AccessPattern pattern, Kind kind, Collection<ConsumedCapacity> capacities) {
        requests.computeIfAbsent(pattern, key -> new LongAdder()).increment();
        for (ConsumedCapacity capacity : capacities) {
            if (capacity != null && capacity.capacityUnits() != null) {
                double consumed = capacity.capacityUnits();
                units.computeIfAbsent(pattern, key -> new DoubleAdder()).add(consumed);
                for (Listener listener : listeners) {
                    listener.consumed(pattern, kind, consumed);
                }
            }
        }
    }

    /**
     * A write that DynamoDB refused (a failed condition, or a cancelled transaction of {@code actions} actions):
     * billed although nothing reports it, 1 write unit per action (see the class comment for why that is exact).
     */
    void recordFailedWrite(AccessPattern pattern, int actions) {
        if (actions < 1) {
            throw new IllegalArgumentException("a failed write has at least one action: " + actions);
        }
        record(pattern, Kind.WRITE, ConsumedCapacity.builder().capacityUnits((double) actions).build());
    }

    /** Requests and capacity units so far, per access pattern that has been used. */
    public Map<AccessPattern, Usage> snapshot() {
        Map<AccessPattern, Usage> snapshot = new EnumMap<>(AccessPattern.class);
        requests.forEach((pattern, count) -> snapshot.put(pattern, new Usage(count.sum(),
                units.getOrDefault(pattern, new DoubleAdder()).sum())));
        return snapshot;
    }

    public void reset() {
        requests.clear();
        units.clear();
    }
}

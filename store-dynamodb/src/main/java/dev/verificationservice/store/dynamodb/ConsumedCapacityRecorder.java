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
 * <p>What it adds up is what the engine reports. A request that fails (a failed condition, a cancelled
 * transaction) reports nothing, although DynamoDB bills a failed conditional write; the benchmarks compute the
 * bill from the items instead (see the README's Performance section).
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

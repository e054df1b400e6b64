package dev.verificationservice.store.dynamodb;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;

/**
 * Adds up the capacity units DynamoDB reports ({@code ReturnConsumedCapacity=TOTAL}) per access pattern, so
 * that a benchmark can say what each pattern costs. Thread-safe; recording is a few atomic adds.
 */
public final class ConsumedCapacityRecorder {

    /** What one access pattern has consumed so far. */
    public record Usage(long requests, double capacityUnits) {
    }

    private final Map<AccessPattern, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<AccessPattern, DoubleAdder> units = new ConcurrentHashMap<>();

    void record(AccessPattern pattern, ConsumedCapacity capacity) {
        requests.computeIfAbsent(pattern, key -> new LongAdder()).increment();
        if (capacity != null && capacity.capacityUnits() != null) {
            units.computeIfAbsent(pattern, key -> new DoubleAdder()).add(capacity.capacityUnits());
        }
    }

    void record(AccessPattern pattern, Collection<ConsumedCapacity> capacities) {
        requests.computeIfAbsent(pattern, key -> new LongAdder()).increment();
        for (ConsumedCapacity capacity : capacities) {
            if (capacity.capacityUnits() != null) {
                units.computeIfAbsent(pattern, key -> new DoubleAdder()).add(capacity.capacityUnits());
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

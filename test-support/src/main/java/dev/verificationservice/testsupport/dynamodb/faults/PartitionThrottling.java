package dev.verificationservice.testsupport.dynamodb.faults;

import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * DynamoDB's limit per partition key ({@link PartitionLimits}), which dynalite does not have: a token bucket of
 * write units and one of read units for every partition key of a table and of each global secondary index, and
 * what every key used and how often it was throttled, for a test to read ({@link DynamoDbFaultProxy#partitions()}).
 *
 * <p>Why: a design whose shared key (an index key every user writes) takes more than a partition's limit works on
 * dynalite at any rate and is throttled on DynamoDB at scale. With {@link DynamoDbFaultProxy.Options#withPartitionLimits}
 * a load test meets that throttling on a laptop, on a clock it moves itself.
 *
 * <p>How: a bucket holds at most one second's worth of its limit (no burst beyond it), starts full and refills at
 * its limit on the proxy's {@linkplain DynamoDbFaultProxy.Options#nanoClock() clock}; a clock moved back refills
 * nothing. A request is admitted when every bucket it charges holds its estimated units (or is full, for a
 * request dearer than a full bucket); the estimate is taken out at once and corrected to the true charge once
 * the engine has answered, so a bucket may go below zero (a write dearer than estimated) or get units back after
 * others were refused (a failed condition refunds its index write): near the limit it refuses a little more than
 * DynamoDB would, never less. The charges are test-support's
 * {@link dev.verificationservice.testsupport.dynamodb.DynamoDbUnits} rules, described on
 * {@code PartitionCharges}. A request refused is answered as DynamoDB does (HTTP 400), and recorded as
 * {@link Exchange.Outcome#PARTITION_THROTTLED}: a {@code ProvisionedThroughputExceededException} whose
 * {@code ThrottlingReasons} name the table or index and the kind ({@code IndexWriteKeyRangeThroughputExceeded}),
 * which the SDK retries, or for a TransactWriteItems a {@code TransactionCanceledException} with
 * {@code ThrottlingError} on the actions refused, which it does not; a base-table write whose index write is refused
 * is refused whole.
 *
 * <p>Not emulated: adaptive capacity and splitting a hot partition (DynamoDB may raise a busy key's share and, in
 * time, split its partition; here a key's limit never moves), several keys sharing one partition (each key has
 * a bucket of its own, so this is never stricter than DynamoDB per key), and the table's or account's own limits.
 *
 * <p>Thread-safe: connection threads charge while a test reads.
 */
public final class PartitionThrottling {

    private final Function<PartitionKey, PartitionLimits> limits;
    private final LongSupplier nanoClock;
    private final Map<Bucket.Id, Bucket> buckets = new HashMap<>(); // guarded by this
    private final Map<PartitionKey, Usage> usage = new LinkedHashMap<>(); // guarded by this

    PartitionThrottling(Function<PartitionKey, PartitionLimits> limits, LongSupplier nanoClock) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /**
     * A partition key of a table ({@code index} empty) or of one of its global secondary indexes.
     *
     * @param table the table's name
     * @param index the index's name; empty for the table itself
     * @param value the partition key's value as text (a number's digits, a binary's base64)
     */
    public record PartitionKey(String table, String index, String value) {
        public PartitionKey {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(index, "index");
            Objects.requireNonNull(value, "value");
        }

        public boolean ofIndex() {
            return !index.isEmpty();
        }

        @Override
        public String toString() {
            return table + (index.isEmpty() ? "" : "/" + index) + " " + value;
        }
    }

    /** Write or read capacity. */
    public enum Kind { WRITE, READ }

    /**
     * What one partition key used: the units charged for the requests it admitted, how many requests it refused, and
     * the units those asked for (as estimated before they would have run; a client's retry asks again).
     */
    public record Usage(PartitionKey key, double writeUnits, double readUnits, long writeThrottles, long readThrottles,
                        double refusedWriteUnits, double refusedReadUnits) {

        static Usage none(PartitionKey key) {
            return new Usage(key, 0, 0, 0, 0, 0, 0);
        }

        public long throttles() {
            return writeThrottles + readThrottles;
        }

        public double units(Kind kind) {
            return kind == Kind.WRITE ? writeUnits : readUnits;
        }

        Usage plus(Kind kind, double units, long throttled, double refusedUnits) {
            return kind == Kind.WRITE
                    ? new Usage(key, writeUnits + units, readUnits, writeThrottles + throttled, readThrottles,
                            refusedWriteUnits + refusedUnits, refusedReadUnits)
                    : new Usage(key, writeUnits, readUnits + units, writeThrottles, readThrottles + throttled,
                            refusedWriteUnits, refusedReadUnits + refusedUnits);
        }
    }

    /** One charge of a request to one key's bucket. */
    record Charge(PartitionKey key, Kind kind, double units) {
    }

    /** Every key that admitted or refused a request since the start or the last {@link #reset()}. */
    public synchronized List<Usage> usage() {
        return List.copyOf(usage.values());
    }

    /** The keys that refused at least one request, the most refusals first. */
    public synchronized List<Usage> throttled() {
        return usage.values().stream().filter(used -> used.throttles() > 0)
                .sorted(Comparator.comparingLong(Usage::throttles).reversed()).toList();
    }

    /** How many requests were refused, over all keys (a request refused by two keys counts twice). */
    public synchronized long throttleCount() {
        return usage.values().stream().mapToLong(Usage::throttles).sum();
    }

    /** The keys by the units of {@code kind} they used, most first. */
    public synchronized List<Usage> hottest(Kind kind) {
        return usage.values().stream().sorted(Comparator.comparingDouble((Usage used) -> used.units(kind)).reversed())
                .toList();
    }

    /** Forgets what was used and refused, and fills every bucket: e.g. after a test's setup. */
    public synchronized void reset() {
        buckets.clear();
        usage.clear();
    }

    /**
     * Takes every charge out of its bucket if each holds its units (or is full); otherwise takes nothing and
     * counts a refusal on each key that lacked them, and returns what each of those buckets was asked for.
     */
    synchronized List<Charge> admit(List<Charge> charges) {
        long now = nanoClock.getAsLong();
        Map<Bucket.Id, Double> wanted = new LinkedHashMap<>();
        charges.forEach(charge -> wanted.merge(new Bucket.Id(charge.key(), charge.kind()), charge.units(), Double::sum));
        List<Bucket.Id> short_ = wanted.entrySet().stream()
                .filter(entry -> !bucket(entry.getKey(), now).holds(entry.getValue()))
                .map(Map.Entry::getKey).toList();
        if (!short_.isEmpty()) {
            short_.forEach(id -> count(id.key(), id.kind(), 0, 1, wanted.get(id)));
            return short_.stream().map(id -> new Charge(id.key(), id.kind(), wanted.get(id))).toList();
        }
        wanted.forEach((id, units) -> bucket(id, now).take(units));
        return List.of();
    }

    /**
     * Corrects the buckets from the {@code estimated} charges (taken by {@link #admit}) to the {@code actual}
     * ones, and counts the actual ones as used.
     */
    synchronized void settle(List<Charge> estimated, List<Charge> actual) {
        long now = nanoClock.getAsLong();
        estimated.forEach(charge -> bucket(new Bucket.Id(charge.key(), charge.kind()), now).take(-charge.units()));
        actual.forEach(charge -> {
            bucket(new Bucket.Id(charge.key(), charge.kind()), now).take(charge.units());
            count(charge.key(), charge.kind(), charge.units(), 0, 0);
        });
    }

    private void count(PartitionKey key, Kind kind, double units, long throttled, double refusedUnits) {
        usage.compute(key, (k, used) -> (used == null ? Usage.none(k) : used).plus(kind, units, throttled, refusedUnits));
    }

    private Bucket bucket(Bucket.Id id, long now) {
        Bucket bucket = buckets.computeIfAbsent(id, ignored -> {
            PartitionLimits limit = limits.apply(id.key());
            return new Bucket(id.kind() == Kind.WRITE ? limit.writeUnitsPerSecond() : limit.readUnitsPerSecond(), now);
        });
        bucket.refill(now);
        return bucket;
    }

    /** One second's worth of a limit at most, refilled at the limit; guarded by the throttling. */
    private static final class Bucket {
        record Id(PartitionKey key, Kind kind) {
        }

        private final double perSecond;
        private double tokens;
        private long refilledAt;

        Bucket(double perSecond, long now) {
            this.perSecond = perSecond;
            this.tokens = perSecond;
            this.refilledAt = now;
        }

        void refill(long now) {
            if (now > refilledAt) {
                tokens = Math.min(perSecond, tokens + perSecond * (now - refilledAt) / 1e9);
            }
            refilledAt = now;
        }

        boolean holds(double units) {
            return tokens >= Math.min(units, perSecond);
        }

        void take(double units) {
            tokens = Math.min(perSecond, tokens - units);
        }
    }
}

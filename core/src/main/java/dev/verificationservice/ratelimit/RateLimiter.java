package dev.verificationservice.ratelimit;

import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Fixed-window rate limits on top of one atomic counter per window. Every counted event takes a place in
 * one atomic write that returns it, so under any concurrency the events of a window get the distinct places
 * 1, 2, 3, ... and exactly {@code limit} of them are allowed. The counter holds no mark per event, so a retried
 * write may count once more, never less (see {@link RateLimitRepository#takePlace}).
 *
 * <p><b>Independent store calls go to the store as one call</b> ({@link UnitOfWork#together}): the read of the
 * earlier windows beside the place taken in the current one ({@link #acquireOverWindows}) and the reads of a
 * user's states ({@link #states}). None of them depends on another's result, and none of them is a condition of
 * another: the decision is made from all the results, exactly as when they ran one after the other. The store
 * decides how they run (on DynamoDB in parallel, one round trip; on the embedded store one after another).
 */
public final class RateLimiter {

    /** Counters outlive their window by this much before TTL may clean them up. */
    public static final Duration COUNTER_GRACE = Duration.ofHours(1);

    private final RateLimitRepository counters;
    private final Clock clock;
    private final SecureTokens tokens;
    private final UnitOfWork units;

    /** @param units the store's units of work, which run the independent calls ({@link UnitOfWork#together}) */
    public RateLimiter(RateLimitRepository counters, Clock clock, SecureTokens tokens, UnitOfWork units) {
        this.counters = counters;
        this.clock = clock;
        this.tokens = tokens;
        this.units = units;
    }

    /** Its own randomness, independent calls one after another ({@link UnitOfWork#SEPARATE_STEPS}). */
    public RateLimiter(RateLimitRepository counters, Clock clock) {
        this(counters, clock, new SecureTokens(), UnitOfWork.SEPARATE_STEPS);
    }

    /**
     * Counts one event of {@code action} for the user and says whether it is within the policy.
     *
     * <p>A policy of several shards (a limit everyone shares, spread over several items so that no one item takes
     * every write) splits the limit over its shards, each a counter of its own share ({@link
     * RateLimitPolicy#shardLimit}). The event takes a place in a shard picked at random and, while the shard it
     * tries is full, in the next one, until one has room or every shard refused it. Each shard is exact, so all of
     * them together never let more than the limit through; an event is refused only when every shard was full
     * as it tried it (a place given back meanwhile in a shard it had already tried is not seen: a refusal then,
     * never an excess). The cost: one write while the shard picked has room, one per shard tried otherwise, and a
     * refusal of a spent budget one write per shard.
     */
    public RateLimitDecision acquire(String userId, String action, RateLimitPolicy policy) {
        Instant now = clock.instant();
        Instant windowStart = windowStart(now, policy.window());
        Instant windowEnd = windowStart.plus(policy.window());
        int first = policy.shards() == 1 ? 0 : ThreadLocalRandom.current().nextInt(policy.shards());
        for (int tried = 0; tried < policy.shards(); tried++) {
            int shard = (first + tried) % policy.shards();
            Place place = new Place(new CounterWindow(shardSubject(userId, shard), action, windowStart,
                    windowEnd.plus(COUNTER_GRACE)), tokens.attemptId());
            long count = take(place, policy.shardLimit(shard));
            if (count <= policy.shardLimit(shard)) {
                return new RateLimitDecision(action, policy.placesBefore(shard) + count, policy.limit(), windowStart,
                        windowEnd, Optional.of(place));
            }
        }
        return new RateLimitDecision(action, policy.limit() + 1L, policy.limit(), windowStart, windowEnd, Optional.empty());
    }

    /**
     * The subject whose counters hold shard {@code shard} of a subject's limit: the subject itself for the first
     * (so that a limit of one shard keeps its items), {@code <subject>#<shard>} for the others.
     */
    static String shardSubject(String subject, int shard) {
        return shard == 0 ? subject : subject + "#" + shard;
    }

    /**
     * Counts one attempt against the limit over the current window and the {@code lookBack} windows before it:
     * the attempt takes its place in the current window, and is allowed only if that place plus the counts of
     * the earlier windows stays within the limit. For failure counts that must bound what happens to one code
     * over its whole life, which spans more than one fixed window. An attempt refused because of the earlier
     * windows takes no place (it is given back at once): only attempts that were let through ever count.
     */
    public RateLimitDecision acquireOverWindows(String userId, String action, RateLimitPolicy policy, int lookBack) {
        if (lookBack == 0) {
            return acquire(userId, action, policy);
        }
        if (policy.shards() != 1) {
            throw new IllegalArgumentException("a limit over several windows is counted in one counter per window");
        }
        Instant now = clock.instant();
        Duration window = policy.window();
        Instant windowStart = windowStart(now, window);
        // The counter is read by the lookBack windows after its own, so it lives until the last of them ends.
        Place place = new Place(new CounterWindow(userId, action, windowStart,
                windowStart.plus(window.multipliedBy(lookBack + 1L)).plus(COUNTER_GRACE)), tokens.attemptId());
        // The earlier windows are read while the place is taken: two independent requests, one round trip.
        List<UnitOfWork.Settled<Object>> ended = units.settle(List.of(
                () -> counts(userId, action, windowStart.minus(window.multipliedBy(lookBack)),
                        windowStart.minus(window), now),
                () -> take(place, policy.limit())));
        // A failed take fails the attempt; its place may stay counted (see take).
        long taken = (Long) ended.get(1).get();
        // A failed read fails the attempt untested: its place must not stay counted.
        @SuppressWarnings("unchecked")
        Map<Instant, Long> earlier = (Map<Instant, Long>) undoneOnFailure(ended.get(0)::get, () -> {
            if (taken <= policy.limit()) {
                counters.givePlaceBack(place);
            }
        });
        long before = earlier.values().stream().mapToLong(Long::longValue).sum();
        long effective = before + taken;
        boolean counted = taken <= policy.limit();
        if (effective > policy.limit() && counted) {
            counters.givePlaceBack(place);
            counted = false;
        }
        Map<Instant, Long> all = new TreeMap<>(earlier);
        all.put(windowStart, Math.min(taken, policy.limit()));
        return new RateLimitDecision(action, effective, policy.limit(), windowStart,
                lockEnd(all, windowStart, window, lookBack, policy.limit()), counted ? Optional.of(place) : Optional.empty());
    }

    /**
     * Takes the place. A failed call is not undone: its write may have landed with only its answer lost, or may
     * never have landed, and a give-back of a place never taken would count one less than happened. So a failed
     * take may stay counted: the safe direction.
     */
    private long take(Place place, long ceiling) {
        return counters.takePlace(place, ceiling);
    }

    /**
     * Runs a store write; when it fails, runs {@code undo} (a write keyed by the same attempt id, which does
     * nothing if the first never landed) before the failure goes up, a failure of the undo added to it.
     */
    public static <T> T undoneOnFailure(Supplier<T> write, Runnable undo) {
        try {
            return write.get();
        } catch (RuntimeException failure) {
            try {
                undo.run();
            } catch (RuntimeException alsoFailed) {
                failure.addSuppressed(alsoFailed);
            }
            throw failure;
        }
    }

    /** The state over the current window and {@code lookBack} before it, counting nothing. */
    public RateLimitDecision currentOverWindows(String userId, String action, RateLimitPolicy policy, int lookBack) {
        Instant now = clock.instant();
        Duration window = policy.window();
        Instant windowStart = windowStart(now, window);
        Map<Instant, Long> all = counts(userId, action, windowStart.minus(window.multipliedBy(lookBack)), windowStart, now);
        long total = all.values().stream().mapToLong(Long::longValue).sum();
        return new RateLimitDecision(action, total, policy.limit(), windowStart,
                total >= policy.limit() ? lockEnd(all, windowStart, window, lookBack, policy.limit())
                        : windowStart.plus(window));
    }

    /**
     * Several reads of states at once, handed to the store as independent calls (on DynamoDB one round trip instead
     * of one each), answered in the order given. A read that fails fails the whole call with its own exception.
     */
    public List<RateLimitDecision> states(List<Supplier<RateLimitDecision>> reads) {
        return units.together(reads);
    }

    /** The clock every window is read by. */
    public Clock clock() {
        return clock;
    }

    /** The store's units of work: how the independent calls of the domain's counted attempts run. */
    public UnitOfWork units() {
        return units;
    }

    private Map<Instant, Long> counts(String userId, String action, Instant from, Instant to, Instant now) {
        Map<Instant, Long> counts = new TreeMap<>();
        for (RateLimitCounter counter : counters.findCounters(userId, action, from, to, now)) {
            counts.put(counter.windowStart(), counter.count());
        }
        return counts;
    }

    /**
     * The first window boundary from which the windows still looked back on hold fewer than {@code limit}
     * events: when a lock-out built from these counts ends. Without new events it ends at the latest when every
     * window counted now has scrolled out of the look-back.
     */
    static Instant lockEnd(Map<Instant, Long> counts, Instant windowStart, Duration window, int lookBack, int limit) {
        for (int ahead = 1; ahead <= lookBack + 1; ahead++) {
            Instant boundary = windowStart.plus(window.multipliedBy(ahead));
            Instant oldestCounted = boundary.minus(window.multipliedBy(lookBack));
            long remaining = counts.entrySet().stream().filter(entry -> !entry.getKey().isBefore(oldestCounted))
                    .mapToLong(Map.Entry::getValue).sum();
            if (remaining < limit) {
                return boundary;
            }
        }
        return windowStart.plus(window.multipliedBy(lookBack + 1));
    }

    /**
     * Gives back the place an earlier {@link #acquire} took: for events counted before their outcome was known
     * that turned out not to count (a verification that succeeded). Does nothing for an event that took none.
     */
    public void release(RateLimitDecision acquired) {
        acquired.place().ifPresent(counters::givePlaceBack);
    }

    /**
     * Claims a cooldown: empty when it was free (now claimed by {@code cooldown}'s attempt), otherwise when the
     * running one ends ({@link RateLimitRepository#claimCooldown}).
     */
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        return counters.claimCooldown(cooldown);
    }

    /** Releases a cooldown this attempt claimed, and only that one ({@link RateLimitRepository#releaseCooldown}). */
    public void releaseCooldown(Cooldown cooldown) {
        counters.releaseCooldown(cooldown);
    }

    /** Forgets every window of the action for the user (an operator lifting a lock-out); how many were cleared. */
    public int reset(String userId, String action) {
        return counters.deleteCounters(userId, action);
    }

    /**
     * The current window's count without counting anything (zero when the window has no counter yet); of a policy
     * of several shards, the counts of all its shards added up.
     */
    public RateLimitDecision current(String userId, String action, RateLimitPolicy policy) {
        Instant now = clock.instant();
        Instant windowStart = windowStart(now, policy.window());
        long count = 0;
        for (int shard = 0; shard < policy.shards(); shard++) {
            count += counters.findCounter(shardSubject(userId, shard), action, windowStart, now)
                    .map(RateLimitCounter::count)
                    .orElse(0L);
        }
        return new RateLimitDecision(action, count, policy.limit(), windowStart, windowStart.plus(policy.window()));
    }

    /** Windows are aligned to the epoch, so every instance of the service agrees on where one starts. */
    public static Instant windowStart(Instant now, Duration window) {
        long windowMillis = window.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), windowMillis) * windowMillis);
    }
}

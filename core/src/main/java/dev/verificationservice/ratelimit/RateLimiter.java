package dev.verificationservice.ratelimit;

import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Fixed-window rate limits on top of one atomic counter per window. Every counted event takes a place in
 * one atomic write that returns it, so under any concurrency the events of a window get the distinct places
 * 1, 2, 3, ... and exactly {@code limit} of them are allowed. Each event is named by a random attempt id
 * written with its place, so a retried write counts once (see {@link RateLimitRepository#takePlace}).
 *
 * <p><b>Independent store calls run in parallel</b> (each is a network round trip on DynamoDB): the read of the
 * earlier windows beside the place taken in the current one ({@link #acquireOverWindows}), the reads of a
 * user's states ({@link #states}), and the first step of a send (the lock-out reads, the places and the read of
 * the user's earlier codes, started with {@link #beside}). None of them depends on another's result, and none
 * of them is a condition of another: the decision is made from all the results, exactly as when they ran one
 * after the other.
 */
public final class RateLimiter {

    /** Counters outlive their window by this much before TTL may clean them up. */
    public static final Duration COUNTER_GRACE = Duration.ofHours(1);

    /**
     * Runs the independent reads: daemon threads, created on demand and ended after a minute idle. Store calls
     * block on I/O, so they need threads of their own (the common fork-join pool has one thread on two cores).
     */
    private static final ExecutorService PARALLEL_READS = Executors.newCachedThreadPool(new java.util.concurrent.ThreadFactory() {
        private final AtomicInteger threads = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "verification-parallel-read-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    });

    private final RateLimitRepository counters;
    private final Clock clock;
    private final SecureTokens tokens;
    private final Executor parallel;
    private final UnitOfWork units;

    public RateLimiter(RateLimitRepository counters, Clock clock, SecureTokens tokens) {
        this(counters, clock, tokens, PARALLEL_READS);
    }

    /**
     * @param units says when the calling thread runs a unit of work whose calls must stay on it: {@link #beside}
     *              then runs its call at once, on this thread
     */
    public RateLimiter(RateLimitRepository counters, Clock clock, SecureTokens tokens, UnitOfWork units) {
        this(counters, clock, tokens, PARALLEL_READS, units);
    }

    /** @param parallel runs the store calls that go out beside the calling thread's own */
    public RateLimiter(RateLimitRepository counters, Clock clock, SecureTokens tokens, Executor parallel) {
        this(counters, clock, tokens, parallel, UnitOfWork.SEPARATE_STEPS);
    }

    private RateLimiter(RateLimitRepository counters, Clock clock, SecureTokens tokens, Executor parallel,
                        UnitOfWork units) {
        this.counters = counters;
        this.clock = clock;
        this.tokens = tokens;
        this.parallel = parallel;
        this.units = units;
    }

    public RateLimiter(RateLimitRepository counters, Clock clock) {
        this(counters, clock, new SecureTokens());
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
        CompletableFuture<Map<Instant, Long>> reading = beside(() -> counts(userId, action,
                windowStart.minus(window.multipliedBy(lookBack)), windowStart.minus(window), now));
        long taken;
        try {
            taken = take(place, policy.limit());
        } catch (RuntimeException e) {
            reading.cancel(false);
            throw e;
        }
        Map<Instant, Long> earlier;
        try {
            earlier = join(reading);
        } catch (RuntimeException e) {
            // The attempt fails untested: it must not stay counted.
            if (taken <= policy.limit()) {
                try {
                    counters.givePlaceBack(place);
                } catch (RuntimeException alsoFailed) {
                    e.addSuppressed(alsoFailed);
                }
            }
            throw e;
        }
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
     * Takes the place; when the call fails, gives the same place back before the failure goes up. The write may
     * have been applied and only its answer lost (the SDK's attempts ran out): the place is named, so the
     * give-back undoes exactly that write, and does nothing if it never landed. A failed call holds no place.
     */
    private long take(Place place, long ceiling) {
        return undoneOnFailure(() -> counters.takePlace(place, ceiling), () -> counters.givePlaceBack(place));
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
     * Several reads of states at once, in parallel (on DynamoDB one round trip instead of one each), answered in
     * the order given. A read that fails fails the whole call with its own exception.
     */
    public List<RateLimitDecision> states(List<Supplier<RateLimitDecision>> reads) {
        // All of them go out at once; the calling thread only waits (had it run one itself, that one could end
        // before the others had even started).
        List<CompletableFuture<RateLimitDecision>> pending = new ArrayList<>();
        for (Supplier<RateLimitDecision> read : reads) {
            pending.add(beside(read));
        }
        List<RateLimitDecision> states = new ArrayList<>();
        try {
            for (CompletableFuture<RateLimitDecision> state : pending) {
                states.add(join(state));
            }
        } finally {
            pending.forEach(state -> state.cancel(false));
        }
        return states;
    }

    /**
     * Starts a store call on the threads of the independent calls, to go out beside the caller's others: only for
     * calls none of which needs another's result or is a condition of another. {@link #join} gives its result.
     * Inside a unit of work that holds the calling thread (the embedded store's one transaction) the call runs at
     * once, on this thread: another thread's call would wait for the very writer this thread holds.
     */
    public <T> CompletableFuture<T> beside(Supplier<T> call) {
        if (units.holdsCallingThread()) {
            return CompletableFuture.supplyAsync(call, Runnable::run);
        }
        return CompletableFuture.supplyAsync(call, parallel);
    }

    /**
     * Waits until every call has ended, whether it succeeded or failed (a failure stays in its call): the caller
     * then knows, for instance, every place that was taken, also when another call failed.
     */
    public static void awaitAll(List<? extends CompletableFuture<?>> calls) {
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).exceptionally(failure -> null).join();
    }

    /** The result of a call run in parallel; its own exception if it failed. */
    public static <T> T join(CompletableFuture<T> call) {
        try {
            return call.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
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
     * Keeps the place an earlier {@link #acquire} took for good: it stays counted and can no longer be given
     * back, and its mark leaves the counter (see {@link RateLimitRepository#keepPlace}). Does nothing for an
     * event that took none.
     */
    public void keep(RateLimitDecision acquired) {
        acquired.place().ifPresent(counters::keepPlace);
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

package dev.verificationservice.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Fixed-window rate limits on top of one atomic counter per window. Every counted event is one atomic
 * ADD that returns the new count, so under any concurrency the events of a window get the distinct counts
 * 1, 2, 3, ... and exactly {@code limit} of them are allowed.
 */
public final class RateLimiter {

    /** Counters outlive their window by this much before TTL may clean them up. */
    public static final Duration COUNTER_GRACE = Duration.ofHours(1);

    private final RateLimitRepository counters;
    private final Clock clock;

    public RateLimiter(RateLimitRepository counters, Clock clock) {
        this.counters = counters;
        this.clock = clock;
    }

    /** Counts one event of {@code action} for the user and says whether it is within the policy. */
    public RateLimitDecision acquire(String userId, String action, RateLimitPolicy policy) {
        Instant now = clock.instant();
        Instant windowStart = windowStart(now, policy.window());
        Instant windowEnd = windowStart.plus(policy.window());
        long count = counters.addToCounter(userId, action, windowStart, windowEnd.plus(COUNTER_GRACE), 1);
        return new RateLimitDecision(action, count, policy.limit(), windowStart, windowEnd);
    }

    /**
     * Gives back the slot an earlier {@link #acquire} took, in the same window: for events counted before
     * their outcome was known that turned out not to count (a verification that succeeded).
     */
    public void release(String userId, RateLimitDecision acquired) {
        counters.addToCounter(userId, acquired.action(), acquired.windowStart(),
                acquired.resetsAt().plus(COUNTER_GRACE), -1);
    }

    /** The current window's count without counting anything (zero when the window has no counter yet). */
    public RateLimitDecision current(String userId, String action, RateLimitPolicy policy) {
        Instant now = clock.instant();
        Instant windowStart = windowStart(now, policy.window());
        long count = counters.findCounter(userId, action, windowStart, now)
                .map(RateLimitCounter::count)
                .orElse(0L);
        return new RateLimitDecision(action, count, policy.limit(), windowStart, windowStart.plus(policy.window()));
    }

    /** Windows are aligned to the epoch, so every instance of the service agrees on where one starts. */
    public static Instant windowStart(Instant now, Duration window) {
        long windowMillis = window.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), windowMillis) * windowMillis);
    }
}

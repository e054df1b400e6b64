package dev.verificationservice.ratelimit;

import dev.verificationservice.security.SecureTokens;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Fixed-window rate limits on top of one atomic counter per window. Every counted event takes a place in
 * one atomic write that returns it, so under any concurrency the events of a window get the distinct places
 * 1, 2, 3, ... and exactly {@code limit} of them are allowed. Each event is named by a random attempt id
 * written with its place, so a retried write counts once (see {@link RateLimitRepository#takePlace}).
 */
public final class RateLimiter {

    /** Counters outlive their window by this much before TTL may clean them up. */
    public static final Duration COUNTER_GRACE = Duration.ofHours(1);

    private final RateLimitRepository counters;
    private final Clock clock;
    private final SecureTokens tokens;

    public RateLimiter(RateLimitRepository counters, Clock clock, SecureTokens tokens) {
        this.counters = counters;
        this.clock = clock;
        this.tokens = tokens;
    }

    public RateLimiter(RateLimitRepository counters, Clock clock) {
        this(counters, clock, new SecureTokens());
    }

    /** Counts one event of {@code action} for the user and says whether it is within the policy. */
    public RateLimitDecision acquire(String userId, String action, RateLimitPolicy policy) {
        Instant now = clock.instant();
        Instant windowStart = windowStart(now, policy.window());
        Instant windowEnd = windowStart.plus(policy.window());
        Place place = new Place(new CounterWindow(userId, action, windowStart, windowEnd.plus(COUNTER_GRACE)),
                tokens.attemptId());
        long count = counters.takePlace(place, policy.limit());
        return new RateLimitDecision(action, count, policy.limit(), windowStart, windowEnd,
                count <= policy.limit() ? Optional.of(place) : Optional.empty());
    }

    /**
     * Gives back the place an earlier {@link #acquire} took: for events counted before their outcome was known
     * that turned out not to count (a verification that succeeded). Does nothing for an event that took none.
     */
    public void release(RateLimitDecision acquired) {
        acquired.place().ifPresent(counters::givePlaceBack);
    }

    /** Forgets every window of the action for the user (an operator lifting a lock-out); how many were cleared. */
    public int reset(String userId, String action) {
        return counters.deleteCounters(userId, action);
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

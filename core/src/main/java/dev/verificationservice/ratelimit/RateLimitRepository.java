package dev.verificationservice.ratelimit;

import java.time.Instant;
import java.util.Optional;

/** Storage SPI for rate-limit counters. */
public interface RateLimitRepository {

    /**
     * Adds {@code delta} to the window's counter atomically (creating it at {@code delta}) and returns the new
     * count. Under any concurrency every increment sees a distinct count, which is what makes a limit exact.
     * A negative delta gives a slot back.
     */
    long addToCounter(String userId, String action, Instant windowStart, Instant expiresAt, long delta);

    /** The counter of one window, if it exists and its ttl is after {@code now}. */
    Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now);
}

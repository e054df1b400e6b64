package dev.verificationservice.ratelimit;

import java.time.Instant;
import java.util.Optional;

/** Storage SPI for rate-limit counters. */
public interface RateLimitRepository {

    /**
     * Adds one to the window's counter atomically (creating it at 1) and returns the new count. Under any
     * concurrency every call sees a distinct count, which is what makes a limit exact.
     */
    long incrementCounter(String userId, String action, Instant windowStart, Instant expiresAt);

    /** The counter of one window, if it exists and its ttl is after {@code now}. */
    Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now);
}

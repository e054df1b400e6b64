package dev.verificationservice.ratelimit;

import java.time.Duration;

/** At most {@code limit} counted events per fixed window of length {@code window}. */
public record RateLimitPolicy(int limit, Duration window) {

    public RateLimitPolicy {
        if (limit < 1) {
            throw new IllegalArgumentException("a rate limit must allow at least 1 event, not " + limit);
        }
        if (window.isNegative() || window.isZero() || window.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("a rate-limit window must be a positive whole number of seconds");
        }
    }
}

package dev.verificationservice.ratelimit;

import java.time.Instant;

/**
 * One fixed window of one user's action: the item {@code RATELIMIT#<userId>#<action>} /
 * {@code WINDOW#<windowStart>}. Its ttl is the window end plus an hour, for cleanup only.
 */
public record RateLimitCounter(String userId, String action, Instant windowStart, long count, Instant expiresAt) {
}

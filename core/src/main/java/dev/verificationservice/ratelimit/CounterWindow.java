package dev.verificationservice.ratelimit;

import java.time.Instant;

/**
 * One fixed window of one subject's action: which counter item an event is counted in.
 *
 * @param expiresAt when the counter may be cleaned up (the window's end plus a grace period)
 */
public record CounterWindow(String userId, String action, Instant windowStart, Instant expiresAt) {
}

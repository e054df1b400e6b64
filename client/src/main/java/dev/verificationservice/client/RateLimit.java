package dev.verificationservice.client;

import java.time.Instant;

/**
 * The current window of one of a user's limits.
 *
 * @param action the limit, e.g. {@code SEND_EMAIL_VERIFICATION} or {@code VERIFY_EMAIL_VERIFICATION}
 * @param count  requests counted in the window (never more than {@code limit}: refused ones are not counted)
 */
public record RateLimit(String action, Instant windowStart, long count, int limit, Instant resetsAt) {
}

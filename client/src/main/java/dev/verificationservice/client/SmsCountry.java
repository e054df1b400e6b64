package dev.verificationservice.client;

import java.time.Instant;

/**
 * A country whose SMS breaker is open, as the operator API lists it.
 *
 * @param country   the ISO region, such as {@code GB}
 * @param sent      SMS sent to it over the current and previous window, all its shards
 * @param verified  of those, codes verified
 * @param openedAt  when its breaker opened
 * @param openUntil when its breaker closes on its own
 */
public record SmsCountry(String country, long sent, long verified, Instant openedAt, Instant openUntil) {

    /** Verified over sent; 1 when nothing was sent. */
    public double conversion() {
        return SmsRange.conversion(sent, verified);
    }
}

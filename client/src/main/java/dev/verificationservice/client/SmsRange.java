package dev.verificationservice.client;

import java.time.Instant;
import java.util.Optional;

/**
 * A number range's SMS figures now, as the operator API lists them.
 *
 * @param range     the range as an operator writes it, such as {@code +447700}
 * @param sent      SMS sent to it over the current and previous window
 * @param verified  of those, codes verified
 * @param openUntil when its open breaker closes on its own; empty while closed
 * @param allowed   whether an operator allowed it: its breaker refuses none of its SMS
 */
public record SmsRange(String range, String country, long sent, long verified, Optional<Instant> openUntil,
                       boolean allowed) {

    /** Verified over sent; 1 when nothing was sent. */
    public double conversion() {
        return conversion(sent, verified);
    }

    /** Verified over sent; 1 when nothing was sent: a range's or a country's. */
    static double conversion(long sent, long verified) {
        return sent == 0 ? 1 : (double) verified / sent;
    }
}

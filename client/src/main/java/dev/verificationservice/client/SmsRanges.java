package dev.verificationservice.client;

import java.time.Instant;
import java.util.List;

/**
 * What the operator API lists of the SMS number ranges.
 *
 * @param openBreakers the ranges whose breaker is open, the latest to close first
 * @param worst        the ranges whose sends reached half the breaker's minimum lately, lowest conversion first
 * @param allowed      the ranges an operator allowed
 */
public record SmsRanges(List<SmsRange> openBreakers, List<SmsRange> worst, List<Allowed> allowed) {

    public SmsRanges {
        openBreakers = List.copyOf(openBreakers);
        worst = List.copyOf(worst);
        allowed = List.copyOf(allowed);
    }

    /** A range an operator allowed, when, and with which key id. */
    public record Allowed(String range, String country, Instant allowedAt, String operatorKeyId) {
    }
}

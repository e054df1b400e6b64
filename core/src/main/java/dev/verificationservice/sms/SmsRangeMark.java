package dev.verificationservice.sms;

import java.time.Instant;
import java.util.Optional;

/**
 * One entry of the operators' registry of number ranges ({@link SmsRangeRepository}): a range whose breaker opened,
 * a range that crossed the watch figure in a window, a range an operator allowed, or a country whose breaker opened.
 * The registry only says where to look: what a range's or country's breaker and figures are now is read from its
 * counters ({@link SmsSignals#read}, {@link SmsSignals#readCountry}).
 *
 * @param kind          which list the entry is in
 * @param window        the window the entry belongs to (the cool-off's for a breaker, the counters' for a watch,
 *                      {@link Instant#EPOCH} for an allowed range): each window's entries are one partition
 * @param prefix        the range as an operator writes it ({@link SmsRange#prefix}); empty for a country's breaker
 * @param country       the range's region, or the country whose breaker opened
 * @param at            when the entry was written
 * @param figures       the range's figures when the entry was written (a watch: its sends, counted up to then)
 * @param expiresAt     after it the entry is no longer read (a breaker's end, the end of the watch's two windows);
 *                      empty for an allowed range, which stays until an operator removes it
 * @param operatorKeyId the key id of the operator who allowed the range; empty for the others
 */
public record SmsRangeMark(Kind kind, Instant window, String prefix, String country, Instant at, SmsFigures figures,
                           Optional<Instant> expiresAt, Optional<String> operatorKeyId) {

    /** The registry's lists. */
    public enum Kind {
        /** A range whose breaker opened in the window (of the cool-off). */
        BREAKER,
        /** A range whose sends in the window (of the counters) reached the watch figure. */
        WATCH,
        /** A range an operator allowed: its breaker never refuses. */
        ALLOWED,
        /** A country whose breaker opened in the window (of the cool-off). */
        COUNTRY_BREAKER
    }

    /** What the entry is of, unique in its list and window: the country for a country's breaker, else the range. */
    public String key() {
        return kind == Kind.COUNTRY_BREAKER ? country : prefix;
    }

    /** Whether the entry is still read at {@code now}. */
    public boolean liveAt(Instant now) {
        return expiresAt.map(end -> end.isAfter(now)).orElse(true);
    }
}

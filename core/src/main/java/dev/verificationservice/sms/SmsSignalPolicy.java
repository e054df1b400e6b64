package dev.verificationservice.sms;

import com.google.i18n.phonenumbers.PhoneNumberUtil.PhoneNumberType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * Whether the send path consults the SMS signals, when a range's breaker opens and for how long, how a number's
 * range is cut, and which kinds of number are refused outright.
 *
 * @param enabled            whether an SMS send reads its range's breaker and counts itself (and a verification)
 * @param monitorOnly        count and report, never refuse (for a new deployment learning its traffic)
 * @param window             the counters' window; a range is judged on the current window and the one before it
 * @param minSends           sends to a range (over the two windows) before its conversion is judged at all
 * @param minConversion      the share of those sends that must have been verified; below it the breaker opens
 * @param coolOff            the breaker's window: once open it refuses for the rest of it and the whole next one
 * @param countryShards      items a country's count is split over, so that no key takes every SMS of a busy country
 * @param ranges             how many leading national digits make a range, by calling code
 * @param refusedNumberTypes kinds of number (libphonenumber's) no SMS goes to, whatever the signals say
 * @param country            the country's breaker: the same rule over a country's figures, with its own thresholds
 */
public record SmsSignalPolicy(boolean enabled, boolean monitorOnly, Duration window, int minSends,
                              double minConversion, Duration coolOff, int countryShards, NumberRanges ranges,
                              Set<PhoneNumberType> refusedNumberTypes, CountryBreaker country) {

    /**
     * A country's breaker: it opens when the country's sends over the two windows reach {@code minSends} while
     * fewer than {@code minConversion} of them were verified, for the same cool-off as a range's. Each instance
     * reads a country's figures (two queries a shard) at most once per {@code refresh}, beside a send's first step,
     * and judges the sends between on what it read: an opening, a lift or a closing elsewhere reaches it within
     * {@code refresh}.
     */
    public record CountryBreaker(int minSends, double minConversion, Duration refresh) {

        /**
         * 1,000 SMS to one country in one to two hours with fewer than one in ten verified: a country of real
         * traffic converts far above it (the simulation: 85 %), and a small deployment never sends so many.
         */
        public static final CountryBreaker DEFAULTS = new CountryBreaker(1_000, 0.1, Duration.ofSeconds(10));

        public CountryBreaker {
            if (minSends < 1 || minConversion < 0 || minConversion > 1 || refresh.isNegative() || refresh.isZero()) {
                throw new IllegalArgumentException("the country breaker needs at least one send, a share between 0 "
                        + "and 1 and a positive refresh");
            }
        }

        /** Whether a country's figures open its breaker: enough sends, too few of them verified. */
        public boolean trips(SmsFigures figures) {
            return figures.sent() >= minSends && figures.verified() < minConversion * figures.sent();
        }
    }

    /** The policy with the country breaker's defaults ({@link CountryBreaker#DEFAULTS}). */
    public SmsSignalPolicy(boolean enabled, boolean monitorOnly, Duration window, int minSends, double minConversion,
                           Duration coolOff, int countryShards, NumberRanges ranges,
                           Set<PhoneNumberType> refusedNumberTypes) {
        this(enabled, monitorOnly, window, minSends, minConversion, coolOff, countryShards, ranges, refusedNumberTypes,
                CountryBreaker.DEFAULTS);
    }

    /**
     * Every kind of number but a mobile one: premium-rate and shared-cost numbers are what SMS pumping (toll fraud)
     * sends to, and the others either cannot receive SMS or are the disposable numbers abuse is made of.
     */
    public static final Set<PhoneNumberType> DEFAULT_REFUSED_NUMBER_TYPES = Set.copyOf(EnumSet.complementOf(
            EnumSet.of(PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE)));

    /**
     * The shipped defaults: on, enforcing; 50 sends in one to two hours with fewer than one in four verified. Real
     * users verify most codes (the simulation: 85 %, within five minutes), so a range of real traffic stays far
     * above the share at any volume, and a small deployment rarely sends 50 codes to one range in two hours at all.
     */
    public static final SmsSignalPolicy DEFAULTS = new SmsSignalPolicy(true, false, Duration.ofHours(1), 50, 0.25,
            Duration.ofHours(1), 8, NumberRanges.DEFAULTS, DEFAULT_REFUSED_NUMBER_TYPES);

    public SmsSignalPolicy {
        if (minSends < 1 || minConversion < 0 || minConversion > 1 || countryShards < 1
                || window.isNegative() || window.isZero() || coolOff.isNegative() || coolOff.isZero()) {
            throw new IllegalArgumentException("the SMS signals need positive windows, at least one send and shard, "
                    + "and a share between 0 and 1");
        }
        if (ranges == null || country == null) {
            throw new IllegalArgumentException("the SMS signals need their number ranges and country breaker");
        }
        refusedNumberTypes = Set.copyOf(refusedNumberTypes);
    }

    public SmsSignalPolicy withEnabled(boolean value) {
        return new SmsSignalPolicy(value, monitorOnly, window, minSends, minConversion, coolOff, countryShards, ranges,
                refusedNumberTypes, country);
    }

    public SmsSignalPolicy withMonitorOnly(boolean value) {
        return new SmsSignalPolicy(enabled, value, window, minSends, minConversion, coolOff, countryShards, ranges,
                refusedNumberTypes, country);
    }

    public SmsSignalPolicy withCountry(CountryBreaker value) {
        return new SmsSignalPolicy(enabled, monitorOnly, window, minSends, minConversion, coolOff, countryShards, ranges,
                refusedNumberTypes, value);
    }

    /** Whether these figures open the breaker: enough sends, too few of them verified. */
    public boolean trips(SmsFigures figures) {
        return figures.sent() >= minSends && figures.verified() < minConversion * figures.sent();
    }
}

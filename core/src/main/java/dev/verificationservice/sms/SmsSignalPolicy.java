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
 */
public record SmsSignalPolicy(boolean enabled, boolean monitorOnly, Duration window, int minSends,
                              double minConversion, Duration coolOff, int countryShards, NumberRanges ranges,
                              Set<PhoneNumberType> refusedNumberTypes) {

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
        if (ranges == null) {
            throw new IllegalArgumentException("the SMS signals need their number ranges");
        }
        refusedNumberTypes = Set.copyOf(refusedNumberTypes);
    }

    public SmsSignalPolicy withEnabled(boolean value) {
        return new SmsSignalPolicy(value, monitorOnly, window, minSends, minConversion, coolOff, countryShards, ranges,
                refusedNumberTypes);
    }

    public SmsSignalPolicy withMonitorOnly(boolean value) {
        return new SmsSignalPolicy(enabled, value, window, minSends, minConversion, coolOff, countryShards, ranges,
                refusedNumberTypes);
    }

    /** Whether these figures open the breaker: enough sends, too few of them verified. */
    public boolean trips(SmsFigures figures) {
        return figures.sent() >= minSends && figures.verified() < minConversion * figures.sent();
    }
}

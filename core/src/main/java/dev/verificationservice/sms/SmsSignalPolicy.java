package dev.verificationservice.sms;

import java.time.Duration;

/**
 * When a range's breaker opens and for how long.
 *
 * @param monitorOnly   count and report, never refuse (for a new deployment learning its traffic)
 * @param window        the counters' window; a range is judged on the current window and the one before it
 * @param minSends      sends to a range (over the two windows) before its conversion is judged at all
 * @param minConversion the share of those sends that must have been verified; below it the breaker opens
 * @param coolOff       the breaker's window: once open it refuses for the rest of it and the whole next one
 * @param countryShards items a country's count is split over, so that no key takes every SMS of a busy country
 */
public record SmsSignalPolicy(boolean monitorOnly, Duration window, int minSends, double minConversion,
                              Duration coolOff, int countryShards) {

    /**
     * The shipped defaults: 50 sends in one to two hours with fewer than one in four verified. Real users verify
     * most codes (the simulation: 85 %, within five minutes), so a range of real traffic stays far above the share
     * at any volume, and a small deployment rarely sends 50 codes to one range in two hours at all.
     */
    public static final SmsSignalPolicy DEFAULTS = new SmsSignalPolicy(false, Duration.ofHours(1), 50, 0.25,
            Duration.ofHours(1), 8);

    public SmsSignalPolicy {
        if (minSends < 1 || minConversion < 0 || minConversion > 1 || countryShards < 1
                || window.isNegative() || window.isZero() || coolOff.isNegative() || coolOff.isZero()) {
            throw new IllegalArgumentException("the SMS signals need positive windows, at least one send and shard, "
                    + "and a share between 0 and 1");
        }
    }

    public SmsSignalPolicy withMonitorOnly(boolean value) {
        return new SmsSignalPolicy(value, window, minSends, minConversion, coolOff, countryShards);
    }

    /** Whether these figures open the breaker: enough sends, too few of them verified. */
    public boolean trips(SmsFigures figures) {
        return figures.sent() >= minSends && figures.verified() < minConversion * figures.sent();
    }
}

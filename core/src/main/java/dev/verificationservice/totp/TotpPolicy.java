package dev.verificationservice.totp;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules {@link TotpService} applies. Wrong codes are also bounded in a row, as for every factor
 * ({@code VERIFY_TOTP_CONSECUTIVE}, {@link dev.verificationservice.attempts.CountedAttempts}).
 *
 * @param pendingTtl    how long an enrolled factor waits for its confirmation (15 minutes)
 * @param verifyLimit   wrong TOTP codes per user ({@code VERIFY_TOTP}); counted before they are tested
 * @param recoveryLimit wrong recovery codes per user ({@code VERIFY_RECOVERY})
 * @param defaultIssuer the issuer an app shows when the enrolment names none
 */
public record TotpPolicy(Duration pendingTtl, RateLimitPolicy verifyLimit, RateLimitPolicy recoveryLimit,
                         String defaultIssuer) {

    public static final Duration DEFAULT_PENDING_TTL = Duration.ofMinutes(15);
    public static final String DEFAULT_ISSUER = "Verification Service";

    private static final Logger LOG = LoggerFactory.getLogger(TotpPolicy.class);

    public TotpPolicy {
        if (pendingTtl == null || pendingTtl.getSeconds() < 1) {
            throw new IllegalArgumentException("pendingTtl must be at least one second");
        }
    }

    /**
     * The rules without a day's limit, which is gone: {@code dailyVerifyLimit} is ignored, with a warning naming
     * what bounds wrong codes over time now.
     *
     * @deprecated wrong codes over time are bounded by {@code VERIFY_TOTP_CONSECUTIVE}
     * ({@link dev.verificationservice.attempts.CountedAttempts#DEFAULT_CONSECUTIVE_LIMIT}); use the constructor
     * without {@code dailyVerifyLimit}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public TotpPolicy(Duration pendingTtl, RateLimitPolicy verifyLimit, RateLimitPolicy recoveryLimit,
                      String defaultIssuer, RateLimitPolicy dailyVerifyLimit) {
        this(pendingTtl, verifyLimit, recoveryLimit, defaultIssuer);
        LOG.warn("TotpPolicy's dailyVerifyLimit ({} per {}) is ignored: the day's limit of wrong TOTP codes "
                + "(VERIFY_TOTP_DAILY) is gone. Wrong codes over time are bounded by VERIFY_TOTP_CONSECUTIVE "
                + "(CountedAttempts.DEFAULT_CONSECUTIVE_LIMIT); use new TotpPolicy(pendingTtl, verifyLimit, "
                + "recoveryLimit, defaultIssuer).", dailyVerifyLimit.limit(), dailyVerifyLimit.window());
    }

    /** The product's defaults; wrong codes are limited like numeric codes (5 per 15 minutes). */
    public static TotpPolicy defaults() {
        return new TotpPolicy(DEFAULT_PENDING_TTL, RateLimitPolicy.DEFAULT_GUESSES,
                RateLimitPolicy.DEFAULT_GUESSES, DEFAULT_ISSUER);
    }
}

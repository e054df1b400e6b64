package dev.verificationservice.totp;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;

/**
 * The rules {@link TotpService} applies.
 *
 * @param pendingTtl    how long an enrolled factor waits for its confirmation (15 minutes)
 * @param verifyLimit   wrong TOTP codes per user ({@code VERIFY_TOTP}); counted before they are tested
 * @param recoveryLimit wrong recovery codes per user ({@code VERIFY_RECOVERY})
 * @param defaultIssuer the issuer an app shows when the enrolment names none
 * @param dailyVerifyLimit wrong TOTP codes per user over a longer window ({@code VERIFY_TOTP_DAILY}), counted
 *                      beside {@code verifyLimit}: a lock-out for the rest of the window, which an operator may lift
 */
public record TotpPolicy(Duration pendingTtl, RateLimitPolicy verifyLimit, RateLimitPolicy recoveryLimit,
                         String defaultIssuer, RateLimitPolicy dailyVerifyLimit) {

    public static final Duration DEFAULT_PENDING_TTL = Duration.ofMinutes(15);
    public static final String DEFAULT_ISSUER = "Verification Service";
    /**
     * Wrong TOTP codes per user and day: the 15-minute limit alone allows 480 guesses a day against a secret that
     * never expires (about 1 in 700 a day for a 6-digit code with a step either side). 20 a day leave a person who
     * mistypes room and an attacker about 1 in 17,000 a day; within NIST SP 800-63B's 100 failed attempts.
     */
    public static final RateLimitPolicy DEFAULT_DAILY_VERIFY_LIMIT = new RateLimitPolicy(20, Duration.ofDays(1));

    public TotpPolicy {
        if (pendingTtl == null || pendingTtl.getSeconds() < 1) {
            throw new IllegalArgumentException("pendingTtl must be at least one second");
        }
        if (dailyVerifyLimit == null || dailyVerifyLimit.window().compareTo(verifyLimit.window()) <= 0) {
            throw new IllegalArgumentException("dailyVerifyLimit must have a longer window than verifyLimit");
        }
    }

    /** The rules with the default daily limit of wrong codes ({@link #DEFAULT_DAILY_VERIFY_LIMIT}). */
    public TotpPolicy(Duration pendingTtl, RateLimitPolicy verifyLimit, RateLimitPolicy recoveryLimit,
                      String defaultIssuer) {
        this(pendingTtl, verifyLimit, recoveryLimit, defaultIssuer, DEFAULT_DAILY_VERIFY_LIMIT);
    }

    /**
     * The product's defaults; wrong codes are limited like numeric codes (5 per 15 minutes) and, since a TOTP secret
     * does not expire, also per day (20).
     */
    public static TotpPolicy defaults() {
        return new TotpPolicy(DEFAULT_PENDING_TTL, RateLimitPolicy.DEFAULT_GUESSES,
                RateLimitPolicy.DEFAULT_GUESSES, DEFAULT_ISSUER, DEFAULT_DAILY_VERIFY_LIMIT);
    }
}

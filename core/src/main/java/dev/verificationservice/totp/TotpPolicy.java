package dev.verificationservice.totp;

import dev.verificationservice.VerificationSettings;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;

/**
 * The rules {@link TotpService} applies.
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

    public TotpPolicy {
        if (pendingTtl == null || pendingTtl.getSeconds() < 1) {
            throw new IllegalArgumentException("pendingTtl must be at least one second");
        }
    }

    /** The product's defaults; wrong codes are limited like numeric codes (5 per 15 minutes). */
    public static TotpPolicy defaults() {
        return new TotpPolicy(DEFAULT_PENDING_TTL, VerificationSettings.DEFAULT_VERIFY_LIMIT,
                VerificationSettings.DEFAULT_VERIFY_LIMIT, DEFAULT_ISSUER);
    }
}

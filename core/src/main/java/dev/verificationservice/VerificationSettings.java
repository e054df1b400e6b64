package dev.verificationservice;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePolicy;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import java.util.Optional;

/**
 * The tunable parts of the domain, with the product's defaults.
 *
 * @param codeTtl        how long a code is valid after it is sent (15 minutes)
 * @param deviceTtl      how long a remembered device stays valid after its last use (30 days)
 * @param auditRetention how long audit entries are kept (90 days); empty keeps them forever
 * @param sendLimit      code requests per user and code type (5 per 15 minutes)
 * @param verifyLimit    failed verifications per user and code type (5 per 15 minutes)
 */
public record VerificationSettings(
        Duration codeTtl,
        Duration deviceTtl,
        Optional<Duration> auditRetention,
        RateLimitPolicy sendLimit,
        RateLimitPolicy verifyLimit,
        int defaultNumericLength) {

    public static final Duration DEFAULT_CODE_TTL = Duration.ofMinutes(15);
    public static final Duration DEFAULT_DEVICE_TTL = Duration.ofDays(30);
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(90);
    public static final RateLimitPolicy DEFAULT_SEND_LIMIT = new RateLimitPolicy(5, Duration.ofMinutes(15));
    public static final RateLimitPolicy DEFAULT_VERIFY_LIMIT = new RateLimitPolicy(5, Duration.ofMinutes(15));

    public VerificationSettings {
        requirePositiveSeconds("codeTtl", codeTtl);
        requirePositiveSeconds("deviceTtl", deviceTtl);
        auditRetention.ifPresent(retention -> requirePositiveSeconds("auditRetention", retention));
        if (defaultNumericLength < CodeFormat.MIN_NUMERIC_LENGTH || defaultNumericLength > CodeFormat.MAX_NUMERIC_LENGTH) {
            throw new IllegalArgumentException("defaultNumericLength must be between " + CodeFormat.MIN_NUMERIC_LENGTH
                    + " and " + CodeFormat.MAX_NUMERIC_LENGTH);
        }
    }

    public static VerificationSettings defaults() {
        return new VerificationSettings(DEFAULT_CODE_TTL, DEFAULT_DEVICE_TTL, Optional.of(DEFAULT_AUDIT_RETENTION),
                DEFAULT_SEND_LIMIT, DEFAULT_VERIFY_LIMIT, CodeFormat.DEFAULT_NUMERIC_LENGTH);
    }

    /** The part of the settings that governs codes. */
    public CodePolicy codePolicy() {
        return new CodePolicy(codeTtl, defaultNumericLength, sendLimit, verifyLimit);
    }

    public VerificationSettings withCodeTtl(Duration ttl) {
        return new VerificationSettings(ttl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength);
    }

    public VerificationSettings withDeviceTtl(Duration ttl) {
        return new VerificationSettings(codeTtl, ttl, auditRetention, sendLimit, verifyLimit, defaultNumericLength);
    }

    public VerificationSettings withAuditRetention(Optional<Duration> retention) {
        return new VerificationSettings(codeTtl, deviceTtl, retention, sendLimit, verifyLimit, defaultNumericLength);
    }

    public VerificationSettings withSendLimit(RateLimitPolicy policy) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, policy, verifyLimit, defaultNumericLength);
    }

    public VerificationSettings withVerifyLimit(RateLimitPolicy policy) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, policy, defaultNumericLength);
    }

    private static void requirePositiveSeconds(String name, Duration duration) {
        // ttl is kept in whole seconds, so a lifetime must be at least one second.
        if (duration == null || duration.getSeconds() < 1) {
            throw new IllegalArgumentException(name + " must be at least one second");
        }
    }
}

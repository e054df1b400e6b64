package dev.verificationservice;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePolicy;
import dev.verificationservice.codes.Mailboxes;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The tunable parts of the domain, with the product's defaults.
 *
 * @param codeTtl        how long a code is valid after it is sent (15 minutes)
 * @param deviceTtl      how long a remembered device stays valid after its last use (30 days)
 * @param auditRetention how long audit entries are kept (90 days); empty keeps them forever
 * @param sendLimit      code requests per user and code type (5 per 15 minutes)
 * @param verifyLimit    failed verifications per user and code type (5 per 15 minutes)
 * @param targetLimit    sends to one delivery target whatever the userId (5 per hour)
 * @param ipLimit        sends per client IP address (20 per hour)
 * @param resendCooldown a new code for the same user and type is refused this long after the last (30 s)
 * @param smsBudget      SMS per window across all users; empty: no budget (the default)
 * @param smsRegions     regions (ISO 3166 alpha-2) SMS may go to; empty: all (the default)
 * @param smsNetworks    country calling codes of the international networks (satellite phones, global
 *                       services: +870, +881, ...) SMS may go to; empty: none (the default)
 * @param deviceMaxLife  a remembered device must register again this long after it first did (365 days)
 * @param mailboxes      which spellings of an email address the target limit counts as one mailbox (the big
 *                       providers' rules, and {@code +tag} dropped on every domain)
 */
public record VerificationSettings(
        Duration codeTtl,
        Duration deviceTtl,
        Optional<Duration> auditRetention,
        RateLimitPolicy sendLimit,
        RateLimitPolicy verifyLimit,
        int defaultNumericLength,
        RateLimitPolicy targetLimit,
        RateLimitPolicy ipLimit,
        Duration resendCooldown,
        Optional<RateLimitPolicy> smsBudget,
        Set<String> smsRegions,
        Set<Integer> smsNetworks,
        Duration deviceMaxLife,
        Mailboxes mailboxes) {

    public static final Duration DEFAULT_CODE_TTL = Duration.ofMinutes(15);
    public static final Duration DEFAULT_DEVICE_TTL = Duration.ofDays(30);
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(90);
    public static final RateLimitPolicy DEFAULT_SEND_LIMIT = new RateLimitPolicy(5, Duration.ofMinutes(15));
    public static final RateLimitPolicy DEFAULT_VERIFY_LIMIT = new RateLimitPolicy(5, Duration.ofMinutes(15));
    public static final RateLimitPolicy DEFAULT_TARGET_LIMIT = new RateLimitPolicy(5, Duration.ofHours(1));
    public static final RateLimitPolicy DEFAULT_IP_LIMIT = new RateLimitPolicy(20, Duration.ofHours(1));
    public static final Duration DEFAULT_RESEND_COOLDOWN = Duration.ofSeconds(30);
    public static final Duration DEFAULT_DEVICE_MAX_LIFE = Duration.ofDays(365);

    public VerificationSettings {
        requirePositiveSeconds("codeTtl", codeTtl);
        requirePositiveSeconds("deviceTtl", deviceTtl);
        auditRetention.ifPresent(retention -> requirePositiveSeconds("auditRetention", retention));
        if (defaultNumericLength < CodeFormat.MIN_NUMERIC_LENGTH || defaultNumericLength > CodeFormat.MAX_NUMERIC_LENGTH) {
            throw new IllegalArgumentException("defaultNumericLength must be between " + CodeFormat.MIN_NUMERIC_LENGTH
                    + " and " + CodeFormat.MAX_NUMERIC_LENGTH);
        }
        if (resendCooldown == null || resendCooldown.isNegative()) {
            throw new IllegalArgumentException("resendCooldown must be zero or positive");
        }
        requirePositiveSeconds("deviceMaxLife", deviceMaxLife);
        if (verifyLimit.shards() != 1) {
            // Its count is read over several windows, one counter each (RateLimiter.acquireOverWindows).
            throw new IllegalArgumentException("verifyLimit is counted in one counter per window, not " + verifyLimit.shards());
        }
        smsRegions = Set.copyOf(smsRegions);
        smsNetworks = Set.copyOf(smsNetworks);
        Objects.requireNonNull(mailboxes, "mailboxes");
    }

    public static VerificationSettings defaults() {
        return new VerificationSettings(DEFAULT_CODE_TTL, DEFAULT_DEVICE_TTL, Optional.of(DEFAULT_AUDIT_RETENTION),
                DEFAULT_SEND_LIMIT, DEFAULT_VERIFY_LIMIT, CodeFormat.DEFAULT_NUMERIC_LENGTH, DEFAULT_TARGET_LIMIT,
                DEFAULT_IP_LIMIT, DEFAULT_RESEND_COOLDOWN, Optional.empty(), Set.of(), Set.of(),
                DEFAULT_DEVICE_MAX_LIFE, Mailboxes.EVERY_DOMAIN);
    }

    /** The part of the settings that governs codes. */
    public CodePolicy codePolicy() {
        return new CodePolicy(codeTtl, defaultNumericLength, sendLimit, verifyLimit, targetLimit, ipLimit,
                resendCooldown, smsBudget, smsRegions, smsNetworks, mailboxes);
    }

    public VerificationSettings withCodeTtl(Duration value) {
        return new VerificationSettings(value, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withDeviceTtl(Duration value) {
        return new VerificationSettings(codeTtl, value, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withAuditRetention(Optional<Duration> value) {
        return new VerificationSettings(codeTtl, deviceTtl, value, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withSendLimit(RateLimitPolicy value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, value, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withVerifyLimit(RateLimitPolicy value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, value, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withTargetLimit(RateLimitPolicy value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                value, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withIpLimit(RateLimitPolicy value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, value, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withResendCooldown(Duration value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, value, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withSmsBudget(Optional<RateLimitPolicy> value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, value, smsRegions, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withSmsRegions(Set<String> value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, value, smsNetworks, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withSmsNetworks(Set<Integer> value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, value, deviceMaxLife, mailboxes);
    }

    public VerificationSettings withDeviceMaxLife(Duration value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, value, mailboxes);
    }

    public VerificationSettings withMailboxes(Mailboxes value) {
        return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength,
                targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, value);
    }

    private static void requirePositiveSeconds(String name, Duration duration) {
        // ttl is kept in whole seconds, so a lifetime must be at least one second.
        if (duration == null || duration.getSeconds() < 1) {
            throw new IllegalArgumentException(name + " must be at least one second");
        }
    }
}

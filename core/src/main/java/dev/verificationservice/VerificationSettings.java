package dev.verificationservice;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePolicy;
import dev.verificationservice.codes.Mailboxes;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.sms.SmsSignalPolicy;
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
 * @param passkeys       the relying party of passkeys (RP ID, origins, lifetimes, cap); empty: passkeys off (the
 *                       default, as a library cannot guess its RP ID)
 * @param smsSignals     the SMS pumping signals: range breaker, its thresholds and the refused kinds of number
 *                       ({@link SmsSignalPolicy#DEFAULTS})
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
        Mailboxes mailboxes,
        Optional<PasskeyPolicy> passkeys,
        SmsSignalPolicy smsSignals) {

    public static final Duration DEFAULT_CODE_TTL = Duration.ofMinutes(15);
    public static final Duration DEFAULT_DEVICE_TTL = Duration.ofDays(30);
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(90);
    public static final RateLimitPolicy DEFAULT_SEND_LIMIT = new RateLimitPolicy(5, Duration.ofMinutes(15));
    public static final RateLimitPolicy DEFAULT_VERIFY_LIMIT = RateLimitPolicy.DEFAULT_GUESSES;
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
        Objects.requireNonNull(passkeys, "passkeys");
        Objects.requireNonNull(smsSignals, "smsSignals");
    }

    /** The product's defaults: the value of each {@code DEFAULT_…} constant. */
    public static VerificationSettings defaults() {
        return builder().build();
    }

    /** A builder that starts from the product's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from these settings. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.codeTtl = codeTtl;
        builder.deviceTtl = deviceTtl;
        builder.auditRetention = auditRetention;
        builder.sendLimit = sendLimit;
        builder.verifyLimit = verifyLimit;
        builder.defaultNumericLength = defaultNumericLength;
        builder.targetLimit = targetLimit;
        builder.ipLimit = ipLimit;
        builder.resendCooldown = resendCooldown;
        builder.smsBudget = smsBudget;
        builder.smsRegions = smsRegions;
        builder.smsNetworks = smsNetworks;
        builder.deviceMaxLife = deviceMaxLife;
        builder.mailboxes = mailboxes;
        builder.passkeys = passkeys;
        builder.smsSignals = smsSignals;
        return builder;
    }

    /** The part of the settings that governs codes. */
    public CodePolicy codePolicy() {
        return new CodePolicy(codeTtl, defaultNumericLength, sendLimit, verifyLimit, targetLimit, ipLimit,
                resendCooldown, smsBudget, smsRegions, smsNetworks, mailboxes);
    }

    // One changed value, the others kept: a shorthand for toBuilder().….build().

    public VerificationSettings withAuditRetention(Optional<Duration> value) {
        return toBuilder().auditRetention(value).build();
    }

    public VerificationSettings withSendLimit(RateLimitPolicy value) {
        return toBuilder().sendLimit(value).build();
    }

    public VerificationSettings withVerifyLimit(RateLimitPolicy value) {
        return toBuilder().verifyLimit(value).build();
    }

    public VerificationSettings withTargetLimit(RateLimitPolicy value) {
        return toBuilder().targetLimit(value).build();
    }

    public VerificationSettings withIpLimit(RateLimitPolicy value) {
        return toBuilder().ipLimit(value).build();
    }

    public VerificationSettings withResendCooldown(Duration value) {
        return toBuilder().resendCooldown(value).build();
    }

    public VerificationSettings withSmsBudget(Optional<RateLimitPolicy> value) {
        return toBuilder().smsBudget(value).build();
    }

    public VerificationSettings withSmsSignals(SmsSignalPolicy value) {
        return toBuilder().smsSignals(value).build();
    }

    public VerificationSettings withDeviceMaxLife(Duration value) {
        return toBuilder().deviceMaxLife(value).build();
    }

    /**
     * Settings named one by one, each starting at the product's default; {@link #build} checks them as the
     * record's constructor does.
     */
    public static final class Builder {

        private Duration codeTtl = DEFAULT_CODE_TTL;
        private Duration deviceTtl = DEFAULT_DEVICE_TTL;
        private Optional<Duration> auditRetention = Optional.of(DEFAULT_AUDIT_RETENTION);
        private RateLimitPolicy sendLimit = DEFAULT_SEND_LIMIT;
        private RateLimitPolicy verifyLimit = DEFAULT_VERIFY_LIMIT;
        private int defaultNumericLength = CodeFormat.DEFAULT_NUMERIC_LENGTH;
        private RateLimitPolicy targetLimit = DEFAULT_TARGET_LIMIT;
        private RateLimitPolicy ipLimit = DEFAULT_IP_LIMIT;
        private Duration resendCooldown = DEFAULT_RESEND_COOLDOWN;
        private Optional<RateLimitPolicy> smsBudget = Optional.empty();
        private Set<String> smsRegions = Set.of();
        private Set<Integer> smsNetworks = Set.of();
        private Duration deviceMaxLife = DEFAULT_DEVICE_MAX_LIFE;
        private Mailboxes mailboxes = Mailboxes.EVERY_DOMAIN;
        private Optional<PasskeyPolicy> passkeys = Optional.empty();
        private SmsSignalPolicy smsSignals = SmsSignalPolicy.DEFAULTS;

        private Builder() {
        }

        public Builder codeTtl(Duration value) {
            this.codeTtl = value;
            return this;
        }

        public Builder deviceTtl(Duration value) {
            this.deviceTtl = value;
            return this;
        }

        public Builder auditRetention(Optional<Duration> value) {
            this.auditRetention = value;
            return this;
        }

        public Builder sendLimit(RateLimitPolicy value) {
            this.sendLimit = value;
            return this;
        }

        public Builder verifyLimit(RateLimitPolicy value) {
            this.verifyLimit = value;
            return this;
        }

        public Builder defaultNumericLength(int value) {
            this.defaultNumericLength = value;
            return this;
        }

        public Builder targetLimit(RateLimitPolicy value) {
            this.targetLimit = value;
            return this;
        }

        public Builder ipLimit(RateLimitPolicy value) {
            this.ipLimit = value;
            return this;
        }

        public Builder resendCooldown(Duration value) {
            this.resendCooldown = value;
            return this;
        }

        public Builder smsBudget(Optional<RateLimitPolicy> value) {
            this.smsBudget = value;
            return this;
        }

        public Builder smsRegions(Set<String> value) {
            this.smsRegions = value;
            return this;
        }

        public Builder smsNetworks(Set<Integer> value) {
            this.smsNetworks = value;
            return this;
        }

        public Builder deviceMaxLife(Duration value) {
            this.deviceMaxLife = value;
            return this;
        }

        public Builder mailboxes(Mailboxes value) {
            this.mailboxes = value;
            return this;
        }

        /** Passkeys for this relying party; its own constructor has checked the RP ID and origins. */
        public Builder passkeys(PasskeyPolicy value) {
            this.passkeys = Optional.of(value);
            return this;
        }

        public Builder smsSignals(SmsSignalPolicy value) {
            this.smsSignals = value;
            return this;
        }

        public VerificationSettings build() {
            return new VerificationSettings(codeTtl, deviceTtl, auditRetention, sendLimit, verifyLimit, defaultNumericLength, targetLimit, ipLimit, resendCooldown, smsBudget, smsRegions, smsNetworks, deviceMaxLife, mailboxes, passkeys, smsSignals);
        }
    }

    private static void requirePositiveSeconds(String name, Duration duration) {
        // ttl is kept in whole seconds, so a lifetime must be at least one second.
        if (duration == null || duration.getSeconds() < 1) {
            throw new IllegalArgumentException(name + " must be at least one second");
        }
    }
}

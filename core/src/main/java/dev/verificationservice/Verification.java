package dev.verificationservice;

import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeDelivery;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.MessageLocales;
import dev.verificationservice.devices.DeviceService;
import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.passkeys.PasskeyService;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.recovery.RecoveryCodeService;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.totp.TotpPolicy;
import dev.verificationservice.totp.TotpService;
import dev.verificationservice.validation.Inputs;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * The library's entry point: the domain services wired to one store, one key ring, one sender and one
 * clock; with an {@link EncryptionKeyRing} also authenticator apps ({@link #totp()}). It is the composition root:
 * each service gets the store's ports and the collaborators it uses, and no more.
 *
 * <pre>{@code
 * Verification verification = Verification.builder()
 *         .store(store).keys(keyRing).sender(sender)
 *         .build();
 * verification.codes().issue(CodeRequest.of("user-1", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@b.io"));
 * }</pre>
 */
public final class Verification {

    private final CodeService codes;
    private final DeviceService devices;
    private final AuditLog audit;
    private final RateLimiter rateLimiter;
    private final SmsSignals smsSignals;
    private final OperatorService support;
    private final IdempotentRequests idempotency;
    private final RecoveryCodeService recovery;
    private final CountedAttempts attempts;
    /** Empty without an encryption key ring: a TOTP secret is stored only sealed, so nothing to seal it with. */
    private final Optional<TotpService> totp;
    /** Empty unless the settings name a relying party ({@link VerificationSettings#passkeys()}). */
    private final Optional<PasskeyService> passkeys;
    private final UnitOfWork units;

    private Verification(Builder builder) {
        VerificationStore store = Objects.requireNonNull(builder.store, "store");
        SecretKeyRing keys = Objects.requireNonNull(builder.keys, "keys");
        CodeSender sender = Objects.requireNonNull(builder.sender, "sender");
        Clock clock = builder.clock;
        UnitOfWork units = store.units();
        this.units = units;
        SecureTokens tokens = new SecureTokens();
        this.rateLimiter = new RateLimiter(store.counters(), clock, tokens, units);
        this.audit = new AuditLog(store.audit(), clock, builder.settings.auditRetention(), tokens);
        // One rule of counted guesses for every factor: a success of one resets the wrong answers in a row of all.
        this.attempts = new CountedAttempts(rateLimiter);
        this.smsSignals = new SmsSignals(store.counters(), audit, clock, units, builder.settings.smsSignals(),
                store.smsRanges());
        this.codes = new CodeService(
                new CodeService.Collaborators(store.codes(), rateLimiter, attempts, audit, keys, tokens, clock, units),
                new CodeDelivery(sender, builder.locales), builder.settings.codePolicy(), smsSignals);
        this.devices = new DeviceService(
                new DeviceService.Collaborators(store.devices(), attempts, audit, keys, tokens, clock, units),
                builder.settings.deviceTtl(), builder.settings.deviceMaxLife());
        this.idempotency = new IdempotentRequests(store.idempotency(), keys, tokens, clock);
        this.recovery = new RecoveryCodeService(store.recoveryCodes(), attempts, builder.totpPolicy.recoveryLimit(),
                audit, keys, tokens, clock, units);
        this.totp = Optional.ofNullable(builder.encryption).map(encryption -> new TotpService(store.totp(), recovery,
                encryption, builder.totpPolicy, attempts, audit, tokens, clock, units));
        this.passkeys = builder.settings.passkeys().map(policy -> new PasskeyService(store.passkeys(), policy, attempts,
                audit, keys, tokens, clock, units));
        // After every service has named its counted factors: the operator lists and lifts them all.
        this.support = new OperatorService(codes, devices, audit, rateLimiter, attempts, smsSignals);
    }

    public static Builder builder() {
        return new Builder();
    }

    public CodeService codes() {
        return codes;
    }

    public DeviceService devices() {
        return devices;
    }

    public AuditLog audit() {
        return audit;
    }

    public RateLimiter rateLimiter() {
        return rateLimiter;
    }

    /** The one rule of counted guesses every factor shares, with its count of refusals answered from memory. */
    public CountedAttempts attempts() {
        return attempts;
    }

    /** Requests made safe to retry with an Idempotency-Key. */
    public IdempotentRequests idempotency() {
        return idempotency;
    }

    /**
     * Authenticator apps.
     *
     * @throws IllegalStateException when the builder was given no {@link Builder#encryption encryption key ring}
     */
    public TotpService totp() {
        return totp.orElseThrow(() -> new IllegalStateException("TOTP needs an encryption key ring for its secrets:"
                + " pass one to Verification.builder().encryption(...) (the starter reads VERIFICATION_ENCRYPTION_KEYS)"));
    }

    /**
     * Passkeys (WebAuthn) for the settings' relying party.
     *
     * @throws IllegalStateException when the settings name no relying party ({@link VerificationSettings#passkeys()})
     */
    public PasskeyService passkeys() {
        return passkeys.orElseThrow(() -> new IllegalStateException("passkeys need a relying party: pass a PasskeyPolicy"
                + " to VerificationSettings.builder().passkeys(...) (the starter reads VERIFICATION_PASSKEYS_RP_ID)"));
    }

    /** Whether {@link #passkeys()} is on: the settings name a relying party. */
    public boolean passkeysOn() {
        return passkeys.isPresent();
    }

    /**
     * Revokes every device of the user and, with passkeys on, every passkey, each audited as its own revocation
     * ({@code DEVICES_REVOKED}, {@code PASSKEY_REVOKED} each): after an account takeover a passkey the intruder
     * registered must not outlive the devices. One unit of work (on the embedded store one transaction); run twice,
     * the second revokes nothing more.
     */
    public RevokedCredentials revokeDevicesAndPasskeys(String userId, ClientContext client) {
        Inputs.userId(userId);
        return units.run("revoke every device and passkey", () -> new RevokedCredentials(
                devices.revokeAll(userId, client),
                passkeys.map(service -> service.revokeAll(userId, client)).orElse(0)));
    }

    /** What {@link #revokeDevicesAndPasskeys} revoked: the devices' live tokens and the passkeys. */
    public record RevokedCredentials(int devices, int passkeys) {
    }

    /** Recovery codes, the fallback of a user's authenticator apps. */
    public RecoveryCodeService recovery() {
        return recovery;
    }

    /** The SMS pumping signals and range breakers. */
    public SmsSignals smsSignals() {
        return smsSignals;
    }

    /** What support staff may do for a user: the operator API's domain. */
    public OperatorService operator() {
        return support;
    }

    public static final class Builder {
        private VerificationStore store;
        private SecretKeyRing keys;
        private CodeSender sender;
        private Clock clock = Clock.systemUTC();
        private VerificationSettings settings = VerificationSettings.defaults();
        private MessageLocales locales = MessageLocales.requestedOrEnglish();
        private EncryptionKeyRing encryption;
        private TotpPolicy totpPolicy = TotpPolicy.defaults();

        private Builder() {
        }

        public Builder store(VerificationStore value) {
            this.store = value;
            return this;
        }

        public Builder keys(SecretKeyRing value) {
            this.keys = value;
            return this;
        }

        public Builder sender(CodeSender value) {
            this.sender = value;
            return this;
        }

        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        public Builder settings(VerificationSettings value) {
            this.settings = Objects.requireNonNull(value, "settings");
            return this;
        }

        /** How the language of a message is chosen; default: the requested locale, else English. */
        public Builder locales(MessageLocales value) {
            this.locales = Objects.requireNonNull(value, "locales");
            return this;
        }

        /** The AES-256-GCM keys TOTP secrets are sealed with; without them {@link Verification#totp()} is off. */
        public Builder encryption(EncryptionKeyRing value) {
            this.encryption = Objects.requireNonNull(value, "encryption");
            return this;
        }

        /** The TOTP and recovery-code rules; default {@link TotpPolicy#defaults()}. */
        public Builder totpPolicy(TotpPolicy value) {
            this.totpPolicy = Objects.requireNonNull(value, "totpPolicy");
            return this;
        }

        public Verification build() {
            return new Verification(this);
        }
    }
}

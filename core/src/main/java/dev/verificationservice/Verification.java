package dev.verificationservice;

import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.codes.CodeDelivery;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.MessageLocales;
import dev.verificationservice.devices.DeviceService;
import dev.verificationservice.foundation.Foundation;
import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import java.time.Clock;
import java.util.Objects;

/**
 * The library's entry point: the domain services wired to one store, one key ring, one sender and one
 * clock.
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
    private final OperatorService support;
    private final IdempotentRequests idempotency;

    private Verification(Builder builder) {
        VerificationStore store = Objects.requireNonNull(builder.store, "store");
        SecretKeyRing keys = Objects.requireNonNull(builder.keys, "keys");
        CodeSender sender = Objects.requireNonNull(builder.sender, "sender");
        SecureTokens tokens = new SecureTokens();
        this.rateLimiter = new RateLimiter(store, builder.clock, tokens, store.units());
        this.audit = new AuditLog(store, builder.clock, builder.settings.auditRetention(), tokens);
        Foundation foundation = new Foundation(rateLimiter, audit, keys, tokens, builder.clock, store.units());
        this.codes = new CodeService(store, new CodeDelivery(sender, builder.locales), builder.settings.codePolicy(),
                foundation);
        this.devices = new DeviceService(store, foundation, builder.settings.deviceTtl(),
                builder.settings.deviceMaxLife());
        this.support = new OperatorService(codes, devices, audit, rateLimiter);
        this.idempotency = new IdempotentRequests(store, keys, tokens, builder.clock);
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

    /** Requests made safe to retry with an Idempotency-Key. */
    public IdempotentRequests idempotency() {
        return idempotency;
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

        public Verification build() {
            return new Verification(this);
        }
    }
}

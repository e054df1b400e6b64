package dev.verificationservice;

import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.idempotency.IdempotencyRepository;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.totp.TotpRepository;
import dev.verificationservice.sms.SmsRangeRepository;
import dev.verificationservice.store.UnitOfWork;

/**
 * The whole storage SPI: one table holding codes, devices, audit entries, rate-limit counters, Idempotency-Keys,
 * TOTP factors, recovery codes, webhooks and passkeys, reached through one port per concept. Each provider (in memory,
 * embedded SQLite, DynamoDB) implements every port with the same keys and items, declared once in the single-table
 * model module ({@code verification-table}, which depends on this core and never the other way round), and passes
 * the same contract test suite. Every method of every port may throw
 * {@link dev.verificationservice.store.StoreException} when the store fails or cannot be reached.
 *
 * <ul>
 *   <li>{@link #codes()}: one-time codes: insert, consume, keep only the newest, delete;</li>
 *   <li>{@link #devices()}: remembered-device tokens and the revoke-all marker;</li>
 *   <li>{@link #audit()}: the audit log (an entry of a type some endpoint subscribes to is also an undelivered
 *   event: {@link #eventSubscriptions});</li>
 *   <li>{@link #counters()}: rate-limit places and cooldowns;</li>
 *   <li>{@link #idempotency()}: Idempotency-Key claims and their stored answers;</li>
 *   <li>{@link #totp()}: authenticator-app factors and the replay rule;</li>
 *   <li>{@link #recoveryCodes()}: recovery-code sets;</li>
 *   <li>{@link #webhooks()}: webhook endpoints, deliveries and the outbox;</li>
 *   <li>{@link #passkeys()}: passkey challenges, user handles and credentials;</li>
 *   <li>{@link #smsRanges()}: the operators' registry of number ranges (open breakers, watched, allowed).</li>
 * </ul>
 * A store implements {@link #ports()}, built once; each accessor answers that port, the same object on every call,
 * so a caller may keep it.
 *
 * <p>A provider never decides validity on its own beyond the conditions of its conditional writes: every
 * read hands back what is stored, and the domain compares ttl with its clock.
 */
public interface VerificationStore extends AutoCloseable {

    /** Every port of this store, built once. */
    StorePorts ports();

    default CodeRepository codes() {
        return ports().codes();
    }

    default DeviceRepository devices() {
        return ports().devices();
    }

    default AuditRepository audit() {
        return ports().audit();
    }

    /** The rate-limit counters and cooldowns. */
    default RateLimitRepository counters() {
        return ports().counters();
    }

    default IdempotencyRepository idempotency() {
        return ports().idempotency();
    }

    default TotpRepository totp() {
        return ports().totp();
    }

    default RecoveryCodeRepository recoveryCodes() {
        return ports().recoveryCodes();
    }

    /**
     * Webhook endpoints, deliveries and the outbox. An audit entry a store writes is also an undelivered event
     * there, in the same atomic step, when {@link #eventSubscriptions} says some endpoint subscribes to its type.
     */
    default WebhookRepository webhooks() {
        return ports().webhooks();
    }

    default PasskeyRepository passkeys() {
        return ports().passkeys();
    }

    default SmsRangeRepository smsRanges() {
        return ports().smsRanges();
    }

    /**
     * The view this store object's audit writes consult to decide which entries enter the outbox, fed by its own
     * endpoints port and told at once of every endpoint write made through this object.
     */
    EventSubscriptions eventSubscriptions();

    /**
     * From now on, audit entries are written without entering the outbox: nothing will deliver them (webhooks are
     * off), so they cost no outbox write, and switching webhooks on later delivers none of them. Called once, before
     * the store takes traffic.
     */
    default void eventsOff() {
        eventSubscriptions().off();
    }

    /**
     * How the domain runs the steps of one operation as a unit ({@link UnitOfWork}): by default each step is its
     * own call and independent calls run one after another; DynamoDB runs independent calls in parallel, and the
     * embedded store runs a unit as one transaction of its one writer.
     */
    default UnitOfWork units() {
        return UnitOfWork.SEPARATE_STEPS;
    }

    /** Throws {@link dev.verificationservice.store.StoreException} when the store cannot serve requests; for readiness checks. */
    void checkReady();

    @Override
    void close();
}

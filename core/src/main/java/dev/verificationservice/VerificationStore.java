package dev.verificationservice;

import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.idempotency.IdempotencyRepository;
import dev.verificationservice.ratelimit.RateLimitRepository;

/**
 * The whole storage SPI: one table holding codes, devices, audit entries and rate-limit counters. Each
 * provider (embedded SQLite, DynamoDB) implements it with the same keys and items, declared once in the
 * single-table model module ({@code verification-table}, which depends on this core and never the other way
 * round), and passes the same contract test suite. Every method may throw
 * {@link dev.verificationservice.store.StoreException} when the store fails or cannot be reached.
 *
 * <p>A provider never decides validity on its own beyond the conditions of its conditional writes: every
 * read hands back what is stored, and the domain compares ttl with its clock.
 */
public interface VerificationStore extends CodeRepository, DeviceRepository, AuditRepository,
        RateLimitRepository, IdempotencyRepository, AutoCloseable {

    /**
     * Webhook endpoints, deliveries and the outbox (§15). Every audit entry a store writes is also an undelivered
     * event there, in the same atomic step.
     */
    WebhookRepository webhooks();

    /** Throws {@link StoreException} when the store cannot serve requests; for readiness checks. */
    void checkReady();

    @Override
    void close();
}

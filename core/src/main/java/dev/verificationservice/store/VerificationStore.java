package dev.verificationservice.store;

import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.ratelimit.RateLimitRepository;

/**
 * The whole storage SPI: one table holding codes, devices, audit entries and rate-limit counters. Each
 * provider (embedded SQLite, DynamoDB) implements it with the same keys, declared once in
 * {@link dev.verificationservice.table.TableKeys}, and passes the same contract test suite.
 *
 * <p>A provider never decides validity on its own beyond the conditions of its conditional writes: every
 * read hands back what is stored, and the domain compares ttl with its clock.
 */
public interface VerificationStore extends CodeRepository, DeviceRepository, AuditRepository,
        RateLimitRepository, AutoCloseable {

    /** Throws {@link StoreException} when the store cannot serve requests; for readiness checks. */
    void checkReady();

    @Override
    void close();
}

package dev.verificationservice.spring.store;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditRepository;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The store's audit log, each call timed. */
record MeteredAudit(AuditRepository audit, StoreTimers.Port timer) implements AuditRepository {

    @Override
    public boolean appendAudit(AuditEntry entry) {
        return timer.time("appendAudit", () -> audit.appendAudit(entry));
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                       int limit, Instant now) {
        return timer.time("queryAudit", () -> audit.queryAudit(userId, from, to, before, limit, now));
    }
}

package dev.verificationservice.audit;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Storage SPI for the audit log. */
public interface AuditRepository {

    /** Writes the entry only if its key is new; {@code false} on a collision (pick another entryId). */
    boolean appendAudit(AuditEntry entry);

    /**
     * Up to {@code limit} entries of one user with timestamps in {@code [from, to]}, newest first,
     * leaving out entries whose retention ended before {@code now}, following the store's pagination as
     * far as needed. {@code before} continues after a previous page: it is the last entry returned then.
     */
    List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                int limit, Instant now);

    /** Where a page ended: the timestamp and entryId of its last (oldest) entry. */
    record AuditPosition(Instant timestamp, String entryId) {
    }
}

package dev.verificationservice.audit;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for the audit log.
 *
 * <p><b>Every entry is an event.</b> Each audit entry a store writes, by {@link #appendAudit} or as part of another
 * write (a consumed code, a registered device, an enrolled or confirmed factor, an accepted step, an issued or used
 * recovery code), is written together with its undelivered event in the webhook outbox
 * ({@link dev.verificationservice.events.WebhookRepository#undeliveredEvents}), in the same atomic step: afterwards
 * both exist or neither does. A retry of the write whose answer was lost leaves exactly one entry and one event (the
 * event's id, {@link dev.verificationservice.events.EventIds#of}, is a function of the entry alone), and an event
 * already fanned out stays out of the outbox.
 */
public interface AuditRepository {

    /**
     * Writes the entry, with its undelivered event in the same atomic step, only if its key is new; {@code false} on a
     * collision (pick another entryId). A retry of this very entry answers {@code true} and leaves one entry and one
     * event.
     */
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

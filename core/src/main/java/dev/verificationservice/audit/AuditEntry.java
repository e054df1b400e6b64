package dev.verificationservice.audit;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One security event: the item {@code USER#<userId>} / {@code AUDIT#<timestamp>#<entryId>}. The random
 * {@code entryId} keeps two events of the same millisecond from overwriting each other while the key
 * still sorts by time. {@code details} never holds a secret.
 *
 * @param expiresAt end of retention, stored as {@code ttl}; empty when retention is "forever"
 */
public record AuditEntry(
        String userId,
        Instant timestamp,
        String entryId,
        AuditEventType eventType,
        Map<String, String> details,
        Optional<String> ipAddress,
        Optional<String> userAgent,
        Optional<String> deviceId,
        boolean success,
        Optional<String> failureReason,
        Optional<Instant> expiresAt) {

    public AuditEntry {
        details = Map.copyOf(details);
    }

    public boolean isRetainedAt(Instant now) {
        return expiresAt.map(end -> now.getEpochSecond() < end.getEpochSecond()).orElse(true);
    }
}

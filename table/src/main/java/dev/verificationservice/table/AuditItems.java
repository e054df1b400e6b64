package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.events.EventIds;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Audit entries with their events: the entry item ({@code USER#<userId>} / {@code AUDIT#<timestamp>#<entryId>}), which
 * is also the undelivered event, in the outbox index under {@code OUTBOX#EVENT#<shard>} / {@code <timestamp>}, while
 * webhooks are on.
 */
public final class AuditItems {

    private AuditItems() {
    }

    /**
     * The entry's item, marked undelivered: the entry is an event, and since the mark is part of this one item,
     * whichever write carries the entry writes its event in the same atomic step, and a retry that finds the item
     * written finds its event too.
     */
    public static Map<String, Object> auditItem(AuditEntry entry) {
        return auditItem(entry, true);
    }

    /**
     * The entry's item, marked undelivered when {@code event} (webhooks are on); unmarked, nothing will ever deliver
     * it, and it costs no outbox index write.
     */
    public static Map<String, Object> auditItem(AuditEntry entry, boolean event) {
        TableKeys.PrimaryKey key = TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId());
        Map<String, Object> item = keyed(key);
        item.put(USER_ID, entry.userId());
        item.put(EVENT_TYPE, entry.eventType().name());
        item.put(EVENT_DETAILS, Map.copyOf(entry.details()));
        entry.ipAddress().ifPresent(ip -> item.put(IP_ADDRESS, ip));
        entry.userAgent().ifPresent(agent -> item.put(USER_AGENT, agent));
        entry.deviceId().ifPresent(device -> item.put(DEVICE_ID, device));
        item.put(SUCCESS, entry.success());
        entry.failureReason().ifPresent(reason -> item.put(FAILURE_REASON, reason));
        item.put(TIMESTAMP, Timestamps.format(entry.timestamp()));
        // Retention "forever" writes no ttl at all, so DynamoDB never deletes the entry.
        entry.expiresAt().ifPresent(end -> item.put(TTL, epochSeconds(end)));
        if (event) {
            TableKeys.IndexKey outbox = TableKeys.outboxEvent(EventIds.of(entry), entry.timestamp());
            item.put(OUTBOX_PK, outbox.gsi1pk());
            item.put(OUTBOX_SK, outbox.gsi1sk());
        }
        return item;
    }

    public static AuditEntry audit(Map<String, Object> item) {
        AuditPosition position = TableKeys.parseAuditSortKey(string(item, SK));
        return new AuditEntry(
                string(item, USER_ID),
                Timestamps.parse(string(item, TIMESTAMP)),
                position.entryId(),
                AuditEventType.valueOf(string(item, EVENT_TYPE)),
                stringMap(item, EVENT_DETAILS),
                optionalString(item, IP_ADDRESS),
                optionalString(item, USER_AGENT),
                optionalString(item, DEVICE_ID),
                bool(item, SUCCESS),
                optionalString(item, FAILURE_REASON),
                item.containsKey(TTL) ? Optional.of(Instant.ofEpochSecond(number(item, TTL))) : Optional.empty());
    }

    /**
     * Whether a stored audit item is this very entry (a retried append whose first answer was lost), compared
     * after both went through the same mapping, so that number and map encodings of the store do not matter.
     */
    public static boolean isSameAuditEntry(Map<String, Object> stored, AuditEntry entry) {
        return audit(stored).equals(audit(auditItem(entry)));
    }
}

package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.time.Instants;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One event as receivers get it, made from an audit entry: what the entry says, never more. Audit details hold no
 * secret and only masked targets, so neither does an event.
 *
 * @param body the request body, {@code {"type":..,"timestamp":..,"data":{..}}}, fixed once so retries send the same
 *             bytes
 */
public record WebhookEvent(String eventId, String type, String userId, Instant occurredAt, String body) {

    public static WebhookEvent of(AuditEntry entry) {
        String type = EventTypes.of(entry.eventType());
        Map<String, String> data = new LinkedHashMap<>();
        data.put("userId", Json.string(entry.userId()));
        data.put("success", Boolean.toString(entry.success()));
        entry.failureReason().ifPresent(reason -> data.put("failureReason", Json.string(reason)));
        Map<String, String> details = new LinkedHashMap<>();
        new TreeMap<>(entry.details()).forEach((name, value) -> details.put(name, Json.string(value)));
        data.put("details", Json.object(details));
        entry.ipAddress().ifPresent(ip -> data.put("ipAddress", Json.string(ip)));
        entry.userAgent().ifPresent(agent -> data.put("userAgent", Json.string(agent)));
        entry.deviceId().ifPresent(device -> data.put("deviceId", Json.string(device)));
        Map<String, String> body = new LinkedHashMap<>();
        body.put("type", Json.string(type));
        body.put("timestamp", Json.string(Instants.iso(entry.timestamp())));
        body.put("data", Json.object(data));
        return new WebhookEvent(EventIds.of(entry), type, entry.userId(), entry.timestamp(), Json.object(body));
    }
}

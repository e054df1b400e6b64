package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An event's id ({@code webhook-id}): {@code evt_} and the base64url of the audit entry's user, time and entry id,
 * so the id names the entry (redelivery by id reads it back by key) and stays the same across retries. Only ids
 * this service could have issued are read back: anything else is refused naming {@code eventId}, so a crafted id
 * never becomes a key.
 */
public final class EventIds {

    public static final String PREFIX = "evt_";
    private static final Pattern PARTS = Pattern.compile(
            "([A-Za-z0-9._@+:-]{1,128})\\|(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)\\|([0-9a-f]{1,64})");

    private EventIds() {
    }

    /** Where an event id points: the audit entry's key parts. */
    public record EventKey(String userId, Instant occurredAt, String entryId) {
    }

    public static String of(AuditEntry entry) {
        String text = entry.userId() + "|" + Instants.iso(entry.timestamp()) + "|" + entry.entryId();
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    public static EventKey parse(String eventId) {
        if (eventId != null && eventId.startsWith(PREFIX) && eventId.length() < 400) {
            try {
                String text = new String(Base64.getUrlDecoder().decode(eventId.substring(PREFIX.length())),
                        StandardCharsets.UTF_8);
                Matcher matcher = PARTS.matcher(text);
                if (matcher.matches()) {
                    return new EventKey(Inputs.userId(matcher.group(1)), Instant.parse(matcher.group(2)),
                            matcher.group(3));
                }
            } catch (IllegalArgumentException | DateTimeParseException e) {
                // falls through to the refusal below
            }
        }
        throw new InvalidInputException("eventId", "is not an event id this service issued; copy the webhook-id "
                + "header of a delivery, or the eventId of GET .../deliveries");
    }
}

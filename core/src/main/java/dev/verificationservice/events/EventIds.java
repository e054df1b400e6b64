package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.InvalidInputException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * An event's id ({@code webhook-id}): {@code evt_} and the base64url of the event's time (milliseconds, 6 bytes)
 * followed by 16 bytes of the SHA-256 of its audit entry's key (user, time, entry id). Receivers and the proxies in
 * between log this header, so it carries nothing personal: the digest cannot be turned back into the user id
 * without the entry id's 64 random bits, which leave the service in no event. It is a function of the entry alone,
 * so every retry and every repeated fan-out of the event give the same id, with no key to keep or rotate. The time
 * lets the service find the event's delivery by key; only ids of this exact shape are read back, so a crafted id
 * never becomes a key.
 */
public final class EventIds {

    public static final String PREFIX = "evt_";
    private static final int TIME_BYTES = 6;
    private static final int DIGEST_BYTES = 16;
    private static final Pattern SHAPE = Pattern.compile("evt_[A-Za-z0-9_-]{30}");

    private EventIds() {
    }

    /** Where an event id points: the event's time (a delivery's key holds it) and the id itself. */
    public record EventKey(String eventId, Instant occurredAt) {
    }

    public static String of(AuditEntry entry) {
        long millis = Instants.toMillis(entry.timestamp()).toEpochMilli();
        String key = entry.userId() + "|" + Instants.iso(entry.timestamp()) + "|" + entry.entryId();
        ByteBuffer id = ByteBuffer.allocate(TIME_BYTES + DIGEST_BYTES);
        for (int shift = 8 * (TIME_BYTES - 1); shift >= 0; shift -= 8) {
            id.put((byte) (millis >>> shift));
        }
        id.put(sha256(key.getBytes(StandardCharsets.UTF_8)), 0, DIGEST_BYTES);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(id.array());
    }

    public static EventKey parse(String eventId) {
        if (eventId == null || !SHAPE.matcher(eventId).matches()) {
            throw new InvalidInputException("eventId", "is not an event id this service issued; copy the webhook-id "
                    + "header of a delivery, or the eventId of GET .../deliveries");
        }
        byte[] bytes = Base64.getUrlDecoder().decode(eventId.substring(PREFIX.length()));
        long millis = 0;
        for (byte b : Arrays.copyOf(bytes, TIME_BYTES)) {
            millis = (millis << 8) | (b & 0xFF);
        }
        Instant occurredAt = Instant.ofEpochMilli(millis);
        AuditLog.requireStorable("eventId", occurredAt);
        return new EventKey(eventId, occurredAt);
    }

    private static byte[] sha256(byte[] input) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}

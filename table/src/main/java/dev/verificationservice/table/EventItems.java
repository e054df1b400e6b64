package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;

import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.EndpointStatus;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookEvent;
import dev.verificationservice.security.SealedSecret;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Webhooks: the endpoint item ({@code WEBHOOKS} / {@code ENDPOINT#<endpointId>}) and the delivery of an event to an
 * endpoint ({@code WEBHOOK#<endpointId>[#<shard>]} / {@code DELIVERY#<timestamp>#<eventId>}), a PENDING one in the
 * outbox index under {@code OUTBOX#DELIVERY#<endpointId>[#<shard>]} at its next attempt (see {@link TableKeys}). The
 * outbox mark of an audit entry, the event itself, is written by {@link AuditItems#auditItem}.
 */
public final class EventItems {

    /** How long a delivery's record is kept after its event: the operator API lists and redelivers within it. */
    public static final Duration DELIVERY_RETENTION = Duration.ofDays(30);

    private EventItems() {
    }

    // WebhookEndpoint

    public static Map<String, Object> endpointItem(WebhookEndpoint endpoint) {
        Map<String, Object> item = TableItems.keyed(TableKeys.webhookEndpoint(endpoint.endpointId()));
        item.put(ENDPOINT_ID, endpoint.endpointId());
        item.put(URL, endpoint.url().toString());
        item.put(EVENT_TYPES, String.join(",", new TreeSet<>(endpoint.eventTypes())));
        endpoint.description().ifPresent(text -> item.put(DESCRIPTION, text));
        item.put(ENDPOINT_STATUS, endpoint.status().name());
        item.put(CREATED_AT, Timestamps.format(endpoint.createdAt()));
        item.put(SECRET, sealed(endpoint.secret()));
        endpoint.previousSecret().ifPresent(previous -> item.put(PREVIOUS_SECRET, sealed(previous)));
        endpoint.previousUntil().ifPresent(until -> item.put(PREVIOUS_UNTIL, Timestamps.format(until)));
        endpoint.failingSince().ifPresent(since -> item.put(FAILING_SINCE, Timestamps.format(since)));
        endpoint.disabledReason().ifPresent(reason -> item.put(DISABLED_REASON, reason));
        item.put(VERSION, endpoint.version());
        return item;
    }

    public static WebhookEndpoint endpoint(Map<String, Object> item) {
        String types = TableItems.string(item, EVENT_TYPES);
        return new WebhookEndpoint(
                TableItems.string(item, ENDPOINT_ID),
                URI.create(TableItems.string(item, URL)),
                types.isEmpty() ? Set.of() : Set.copyOf(Arrays.asList(types.split(","))),
                TableItems.optionalString(item, DESCRIPTION),
                EndpointStatus.valueOf(TableItems.string(item, ENDPOINT_STATUS)),
                Timestamps.parse(TableItems.string(item, CREATED_AT)),
                sealed(TableItems.stringMap(item, SECRET)),
                item.containsKey(PREVIOUS_SECRET) ? Optional.of(sealed(TableItems.stringMap(item, PREVIOUS_SECRET)))
                        : Optional.empty(),
                optionalInstant(item, PREVIOUS_UNTIL),
                optionalInstant(item, FAILING_SINCE),
                TableItems.optionalString(item, DISABLED_REASON),
                TableItems.number(item, VERSION));
    }

    private static Map<String, String> sealed(SealedSecret secret) {
        return Map.of("keyId", secret.keyId(), "nonce", secret.nonce(), "ciphertext", secret.ciphertext());
    }

    private static SealedSecret sealed(Map<String, String> map) {
        return new SealedSecret(map.get("keyId"), map.get("nonce"), map.get("ciphertext"));
    }

    // Delivery

    /** Where a new delivery is written: its event's shard. */
    public static TableKeys.PrimaryKey deliveryKey(Delivery delivery) {
        return TableKeys.delivery(delivery.endpointId(), delivery.event().occurredAt(), delivery.eventId());
    }

    /**
     * Where a stored delivery may be, in the order to look: its event's shard, then (when that is another) the
     * endpoint's one partition, where the previous release wrote it. A stored delivery is rewritten where it is.
     */
    public static List<TableKeys.PrimaryKey> deliveryKeys(String endpointId, Instant occurredAt, String eventId) {
        return Stream.of(TableKeys.delivery(endpointId, occurredAt, eventId),
                TableKeys.unshardedDelivery(endpointId, occurredAt, eventId)).distinct().toList();
    }

    /** {@link #deliveryKeys(String, Instant, String)} of this delivery. */
    public static List<TableKeys.PrimaryKey> deliveryKeys(Delivery delivery) {
        return deliveryKeys(delivery.endpointId(), delivery.event().occurredAt(), delivery.eventId());
    }

    /** The delivery's item at its event's shard; a PENDING one is in the outbox index at its next attempt. */
    public static Map<String, Object> deliveryItem(Delivery delivery) {
        return deliveryItem(delivery, deliveryKey(delivery));
    }

    /** The delivery's item at {@code key}, one of its {@link #deliveryKeys}: the outbox entry is its shard's. */
    public static Map<String, Object> deliveryItem(Delivery delivery, TableKeys.PrimaryKey key) {
        WebhookEvent event = delivery.event();
        Map<String, Object> item = TableItems.keyed(key);
        item.put(ENDPOINT_ID, delivery.endpointId());
        item.put(EVENT_ID, event.eventId());
        item.put(EVENT_TYPE, event.type());
        item.put(USER_ID, event.userId());
        item.put(TIMESTAMP, Timestamps.format(event.occurredAt()));
        item.put(BODY, event.body());
        item.put(DELIVERY_STATUS, delivery.status().name());
        item.put(ATTEMPTS, (long) delivery.attempts());
        delivery.lastAttemptAt().ifPresent(at -> item.put(LAST_ATTEMPT_AT, Timestamps.format(at)));
        delivery.lastStatus().ifPresent(status -> item.put(LAST_STATUS, (long) status));
        delivery.lastError().ifPresent(error -> item.put(LAST_ERROR, error));
        delivery.leaseOwner().ifPresent(owner -> item.put(LEASE_OWNER, owner));
        delivery.leaseUntil().ifPresent(until -> item.put(LEASE_UNTIL, until.toEpochMilli()));
        if (delivery.status() == DeliveryStatus.PENDING) {
            Instant due = delivery.nextAttemptAt().orElse(event.occurredAt());
            item.put(DUE_AT, due.toEpochMilli());
            TableKeys.IndexKey outbox = TableKeys.outboxDelivery(delivery.endpointId(), event.eventId(), due);
            item.put(OUTBOX_PK, outbox.gsi1pk());
            item.put(OUTBOX_SK, outbox.gsi1sk());
        }
        item.put(TTL, TableItems.epochSeconds(event.occurredAt().plus(DELIVERY_RETENTION)));
        return item;
    }

    public static Delivery delivery(Map<String, Object> item) {
        WebhookEvent event = new WebhookEvent(
                TableItems.string(item, EVENT_ID),
                TableItems.string(item, EVENT_TYPE),
                TableItems.string(item, USER_ID),
                Timestamps.parse(TableItems.string(item, TIMESTAMP)),
                TableItems.string(item, BODY));
        return new Delivery(
                TableItems.string(item, ENDPOINT_ID),
                event,
                DeliveryStatus.valueOf(TableItems.string(item, DELIVERY_STATUS)),
                (int) TableItems.number(item, ATTEMPTS),
                optionalMillis(item, DUE_AT),
                optionalInstant(item, LAST_ATTEMPT_AT),
                item.get(LAST_STATUS) instanceof Number status ? Optional.of(status.intValue()) : Optional.empty(),
                TableItems.optionalString(item, LAST_ERROR),
                TableItems.optionalString(item, LEASE_OWNER),
                optionalMillis(item, LEASE_UNTIL));
    }

    private static Optional<Instant> optionalInstant(Map<String, Object> item, String name) {
        return TableItems.optionalString(item, name).map(Timestamps::parse);
    }

    private static Optional<Instant> optionalMillis(Map<String, Object> item, String name) {
        return item.get(name) instanceof Number millis ? Optional.of(Instant.ofEpochMilli(millis.longValue()))
                : Optional.empty();
    }
}

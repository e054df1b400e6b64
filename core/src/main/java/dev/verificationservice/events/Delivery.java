package dev.verificationservice.events;

import java.time.Instant;
import java.util.Optional;

/**
 * One event for one endpoint: an item of the endpoint's delivery partitions, keyed by the event's time and id (the
 * layout: docs/single-table.md). It carries the event's body, fixed at fan-out, so every attempt sends and signs the
 * same bytes. While PENDING it is in the outbox index at {@code nextAttemptAt}, where any relay instance finds it; an
 * attempt is made only under a lease
 * ({@code leaseOwner} until {@code leaseUntil}) taken by a conditional write, so two instances never send it at once.
 *
 * @param attempts        attempts made so far
 * @param lastStatus      the HTTP status of the last attempt, when one came
 * @param lastError       why the last attempt failed (status, timeout, refused address), never a secret
 */
public record Delivery(
        String endpointId,
        WebhookEvent event,
        DeliveryStatus status,
        int attempts,
        Optional<Instant> nextAttemptAt,
        Optional<Instant> lastAttemptAt,
        Optional<Integer> lastStatus,
        Optional<String> lastError,
        Optional<String> leaseOwner,
        Optional<Instant> leaseUntil) {

    /** A new delivery, due now, written at fan-out. */
    public static Delivery pending(String endpointId, WebhookEvent event, Instant now) {
        return new Delivery(endpointId, event, DeliveryStatus.PENDING, 0, Optional.of(now), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A delivery for a disabled endpoint: recorded as failed, never sent unless redelivered. */
    public static Delivery skipped(String endpointId, WebhookEvent event) {
        return new Delivery(endpointId, event, DeliveryStatus.FAILED, 0, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.of("the endpoint was disabled"), Optional.empty(), Optional.empty());
    }

    public String eventId() {
        return event.eventId();
    }

    /** The delivery as a claim by {@code owner} writes it (stores answer this from {@code claimDelivery}). */
    public Delivery leasedTo(String owner, Instant until) {
        return new Delivery(endpointId, event, status, attempts, nextAttemptAt, lastAttemptAt, lastStatus, lastError,
                Optional.of(owner), Optional.of(until));
    }

    /** The delivery as it was before its claim: its lease given back, unsent (a relay that stops). */
    Delivery released() {
        return new Delivery(endpointId, event, status, attempts, nextAttemptAt, lastAttemptAt, lastStatus, lastError,
                Optional.empty(), Optional.empty());
    }

    Delivery delivered(Instant at, int status) {
        return new Delivery(endpointId, event, DeliveryStatus.DELIVERED, attempts + 1, Optional.empty(),
                Optional.of(at), Optional.of(status), Optional.empty(), Optional.empty(), Optional.empty());
    }

    Delivery failed(Instant at, Optional<Integer> status, String error, Optional<Instant> retryAt) {
        return new Delivery(endpointId, event, retryAt.isPresent() ? DeliveryStatus.PENDING : DeliveryStatus.FAILED,
                attempts + 1, retryAt, Optional.of(at), status, Optional.of(error), Optional.empty(), Optional.empty());
    }

    /** Sent again from the start of the schedule (an operator's redelivery). */
    Delivery redelivered(Instant now) {
        return new Delivery(endpointId, event, DeliveryStatus.PENDING, 0, Optional.of(now), lastAttemptAt,
                lastStatus, lastError, Optional.empty(), Optional.empty());
    }
}

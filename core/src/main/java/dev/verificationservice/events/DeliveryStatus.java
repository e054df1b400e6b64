package dev.verificationservice.events;

/** Where one event stands with one endpoint. */
public enum DeliveryStatus {
    /** Waiting for its next attempt (at {@code nextAttemptAt}). */
    PENDING,
    /** A 2xx answer came. */
    DELIVERED,
    /** The retry schedule ran out, or the endpoint was disabled; only a redelivery sends it again. */
    FAILED
}

package dev.verificationservice.events;

/** What one attempt at a delivery came to; the metrics count deliveries by it and by endpoint. */
public enum DeliveryOutcome {
    /** A 2xx answer. */
    DELIVERED,
    /** It failed; the next attempt is scheduled. */
    RETRYING,
    /** It failed for the last time, or its endpoint is disabled or gone. */
    FAILED,
    /** Another relay holds the lease, or it is no longer due: nothing was sent. */
    NOT_CLAIMED,
    /**
     * Sent, but the lease ran out before the outcome was written: another relay may send it again (a duplicate,
     * which receivers drop by {@code webhook-id}).
     */
    LEASE_LOST
}

package dev.verificationservice.events;

/** Whether the relay delivers to an endpoint. */
public enum EndpointStatus {
    ENABLED,
    /** After three days of failing or a 410 answer; events still get a FAILED delivery, so a redelivery finds them. */
    DISABLED
}

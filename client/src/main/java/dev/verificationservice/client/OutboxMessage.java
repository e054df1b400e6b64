package dev.verificationservice.client;

import java.time.Instant;

/**
 * A message kept by the development outbox ({@code GET /dev/outbox}), which exists only while the service
 * has no delivery channel configured. It holds the code: development and tests only.
 */
public record OutboxMessage(String userId, DeliveryMethod channel, String to, CodeType codeType, String code,
                            String body, Instant sentAt) {

    /** Never shows the code or the body that holds it. */
    @Override
    public String toString() {
        return "OutboxMessage[userId=" + userId + ", channel=" + channel + ", to=" + to + ", codeType=" + codeType + ", sentAt=" + sentAt
                + "]";
    }
}

package dev.verificationservice.client;

import java.time.Instant;
import java.util.Optional;

/**
 * One event for one endpoint: what was sent and what came back.
 *
 * @param status     {@code PENDING} (waiting for its next attempt), {@code DELIVERED} or {@code FAILED}
 * @param answerCode the HTTP status of the last attempt, when one came
 */
public record WebhookDelivery(String eventId, String type, String userId, Instant occurredAt, String status,
                              int attempts, Optional<Integer> answerCode, Optional<Instant> lastAttemptAt,
                              Optional<Instant> nextAttemptAt, Optional<String> lastError) {
}

package dev.verificationservice.client;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of a user's security history.
 *
 * @param eventType     {@code CODE_SENT}, {@code CODE_DELIVERY_FAILED}, {@code CODE_VERIFIED},
 *                      {@code CODE_VERIFICATION_FAILED}, {@code CODES_INVALIDATED}, {@code RATE_LIMITED},
 *                      {@code DEVICE_ADDED}, {@code DEVICE_VERIFIED}, {@code DEVICE_REVOKED},
 *                      {@code DEVICES_REVOKED}, or one a newer service adds (text, so that none is lost)
 * @param failureReason for a failed event, e.g. {@code NOT_FOUND}
 * @param details       the event's details, never a secret (targets are masked)
 */
public record AuditEvent(Instant timestamp, String eventType, boolean success, Optional<String> failureReason,
                         Map<String, String> details, Optional<String> ipAddress, Optional<String> userAgent,
                         Optional<String> deviceId) {

    public AuditEvent {
        details = Map.copyOf(details);
    }
}

package dev.verificationservice.client;

import java.time.Instant;
import java.util.Optional;

/** One remembered device token of a user, as {@code GET /v1/users/{userId}/devices} lists it (no secret). */
public record Device(String deviceId, String tokenId, String deviceType, Optional<String> deviceName,
                     Optional<String> pushToken, Instant lastActiveAt, Instant createdAt, Instant expiresAt,
                     Optional<String> ipAddress, Optional<String> userAgent) {
}

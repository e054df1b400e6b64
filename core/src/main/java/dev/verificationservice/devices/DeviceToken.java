package dev.verificationservice.devices;

import java.time.Instant;
import java.util.Optional;

/**
 * A remembered device: the item {@code DEVICE#<deviceId>} / {@code TOKEN#<tokenId>}. The remember-me
 * secret itself is never stored: {@code tokenId} is its HMAC digest.
 *
 * @param expiresAt {@code lastActiveAt} plus the device lifetime; stored as {@code ttl} in epoch seconds
 */
public record DeviceToken(
        String deviceId,
        String tokenId,
        String userId,
        String deviceType,
        Optional<String> deviceName,
        Optional<String> pushToken,
        Instant lastActiveAt,
        Optional<String> ipAddress,
        Optional<String> userAgent,
        Instant createdAt,
        Instant expiresAt) {

    public boolean isActiveAt(Instant now) {
        return now.getEpochSecond() < expiresAt.getEpochSecond();
    }
}

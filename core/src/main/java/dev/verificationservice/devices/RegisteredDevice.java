package dev.verificationservice.devices;

import java.time.Instant;

/**
 * A newly remembered device. {@code secret} is shown to the caller this once and stored nowhere; its
 * {@link #toString()} hides it.
 */
public record RegisteredDevice(String userId, String deviceId, String tokenId, String secret, Instant expiresAt) {

    @Override
    public String toString() {
        return "RegisteredDevice[userId=" + userId + ", deviceId=" + deviceId + ", tokenId=" + tokenId
                + ", secret=<redacted>, expiresAt=" + expiresAt + "]";
    }
}

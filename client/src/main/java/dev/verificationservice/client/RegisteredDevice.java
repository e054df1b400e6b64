package dev.verificationservice.client;

import java.time.Instant;

/**
 * A registered device. The {@code secret} is in this answer and nowhere else: hand it to the device (as its
 * remember-me cookie or token) and do not keep it; the service stores only its HMAC ({@code tokenId}).
 */
public record RegisteredDevice(String deviceId, String tokenId, String secret, Instant expiresAt) {

    /** Never shows the secret. */
    @Override
    public String toString() {
        return "RegisteredDevice[deviceId=" + deviceId + ", tokenId=" + tokenId + ", secret=<redacted>, expiresAt="
                + expiresAt + "]";
    }
}

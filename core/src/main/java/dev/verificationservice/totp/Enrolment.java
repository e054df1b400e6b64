package dev.verificationservice.totp;

import java.time.Instant;

/**
 * A newly enrolled, pending factor. {@code secret}, {@code otpauthUri} and {@code qrCode} (which both hold the secret)
 * are shown to the caller this once and stored nowhere in clear; {@link #toString()} hides them.
 *
 * @param expiresAt when the pending factor lapses unless it is confirmed
 */
public record Enrolment(String factorId, String secret, String otpauthUri, String qrCode, Instant expiresAt) {

    @Override
    public String toString() {
        return "Enrolment[factorId=" + factorId + ", secret=<redacted>, otpauthUri=<redacted>, qrCode=<redacted>, "
                + "expiresAt=" + expiresAt + "]";
    }
}

package dev.verificationservice.client;

import java.time.Instant;

/**
 * A new, pending authenticator factor. The {@code secret} (and the {@code otpauthUri} and {@code qrCode}, which hold
 * it) are in this answer and nowhere else: show them to the person, do not keep them.
 *
 * @param qrCode a {@code data:image/png;base64,...} URI, for an {@code <img src>}
 * @param expiresAt when the factor lapses unless it is confirmed
 */
public record TotpEnrolment(String factorId, String secret, String otpauthUri, String qrCode, Instant expiresAt) {

    /** Never shows the secret. */
    @Override
    public String toString() {
        return "TotpEnrolment[factorId=" + factorId + ", secret=<redacted>, expiresAt=" + expiresAt + "]";
    }
}

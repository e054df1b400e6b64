package dev.verificationservice.codes;

import java.time.Instant;

/**
 * A stored verification code: the item {@code CODE#<digest>}. It holds no secret: {@code digest} is the
 * HMAC of the code, and {@code maskedTarget} is the delivery target as shown to people
 * ({@code j***@example.com}), since nothing after sending needs the full address.
 *
 * @param expiresAt the moment the code stops being valid; stored as {@code ttl} in epoch seconds
 */
public record VerificationCode(
        String digest,
        String userId,
        CodeType codeType,
        CodeFormat format,
        DeliveryMethod deliveryMethod,
        String maskedTarget,
        boolean used,
        Instant createdAt,
        Instant expiresAt) {

    /** Valid now: not used and {@code now} strictly before the expiry second, decided by the caller's clock. */
    public boolean isActiveAt(Instant now) {
        return !used && !isExpiredAt(now);
    }

    public boolean isExpiredAt(Instant now) {
        return now.getEpochSecond() >= expiresAt.getEpochSecond();
    }
}

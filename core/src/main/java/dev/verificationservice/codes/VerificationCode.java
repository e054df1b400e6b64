package dev.verificationservice.codes;

import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;

/**
 * A stored verification code: the item {@code CODE#<digest>}. It holds no secret: {@code digest} is the
 * HMAC of the code, and {@code maskedTarget} is the delivery target as shown to people
 * ({@code j***@example.com}), since nothing after sending needs the full address.
 *
 * @param expiresAt     the moment the code stops being valid; stored as {@code ttl} in epoch seconds
 * @param contextDigest HMAC of what the code approves, when it was sent with a context (never the text)
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
        Instant expiresAt,
        Optional<String> contextDigest) {

    /**
     * Which of a user's codes of a type is the newest, the one that may be used: the later createdAt, and on a
     * tie the greater digest (any fixed order does, as long as every store and every request uses this one).
     */
    public static final Comparator<VerificationCode> ISSUE_ORDER =
            Comparator.comparing(VerificationCode::createdAt).thenComparing(VerificationCode::digest);

    public VerificationCode {
        contextDigest = contextDigest == null ? Optional.empty() : contextDigest;
    }

    public VerificationCode(String digest, String userId, CodeType codeType, CodeFormat format,
                            DeliveryMethod deliveryMethod, String maskedTarget, boolean used, Instant createdAt,
                            Instant expiresAt) {
        this(digest, userId, codeType, format, deliveryMethod, maskedTarget, used, createdAt, expiresAt,
                Optional.empty());
    }

    /** Valid now: not used and {@code now} strictly before the expiry second, decided by the caller's clock. */
    public boolean isActiveAt(Instant now) {
        return !used && !isExpiredAt(now);
    }

    public boolean isExpiredAt(Instant now) {
        return now.getEpochSecond() >= expiresAt.getEpochSecond();
    }
}

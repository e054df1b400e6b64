package dev.verificationservice.codes;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A stored verification code: the item {@code CODE#<digest>}. It holds no secret: {@code digest} is the
 * HMAC of the code, and {@code maskedTarget} is the delivery target as shown to people
 * ({@code j***@example.com}), since nothing after sending needs the full address.
 *
 * @param expiresAt     the moment the code stops being valid; stored as {@code ttl} in epoch seconds
 * @param contextDigest HMAC of what the code approves, when it was sent with a context (never the text)
 * @param smsRange      the number range of an SMS code's target ({@code +447700}), so that its verification is
 *                      counted there ({@link dev.verificationservice.sms.SmsSignals}); empty for any other code,
 *                      and for a code stored before the release that keeps it
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
        Optional<String> contextDigest,
        Optional<String> smsRange) {

    /**
     * Whether this code may take the place of {@code current} as the one usable code of its user and type: unless
     * it was created before it. On a tie (one millisecond) the code made current last wins, so a request's code
     * always replaces the codes it has seen, even on a clock that has not moved.
     */
    public boolean mayReplace(VerificationCode current) {
        return !createdAt.isBefore(current.createdAt());
    }

    /**
     * What making {@code code} current deletes among the stored codes of its user and type (it among them): every
     * other code it may replace, and itself when a newer one is stored. A code no longer stored was replaced (by
     * a request of the same millisecond) or invalidated before it could be made current: it replaces nothing.
     */
    public static List<VerificationCode> replacedBy(VerificationCode code, List<VerificationCode> stored) {
        if (stored.stream().noneMatch(other -> other.digest().equals(code.digest()))) {
            return List.of();
        }
        boolean lost = stored.stream().anyMatch(other -> !code.mayReplace(other));
        return stored.stream().filter(other -> other.digest().equals(code.digest()) ? lost : code.mayReplace(other))
                .toList();
    }

    public VerificationCode {
        contextDigest = contextDigest == null ? Optional.empty() : contextDigest;
        smsRange = smsRange == null ? Optional.empty() : smsRange;
    }

    public VerificationCode(String digest, String userId, CodeType codeType, CodeFormat format,
                            DeliveryMethod deliveryMethod, String maskedTarget, boolean used, Instant createdAt,
                            Instant expiresAt, Optional<String> contextDigest) {
        this(digest, userId, codeType, format, deliveryMethod, maskedTarget, used, createdAt, expiresAt, contextDigest,
                Optional.empty());
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

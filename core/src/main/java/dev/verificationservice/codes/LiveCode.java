package dev.verificationservice.codes;

import java.time.Instant;

/** A live code as support staff may see it: what kind, where it went (masked), when it expires. No digest. */
public record LiveCode(CodeType codeType, CodeFormat format, DeliveryMethod deliveryMethod, String maskedTarget,
                       Instant createdAt, Instant expiresAt) {
}

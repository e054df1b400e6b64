package dev.verificationservice.codes;

import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * A code on its way to a person: the only object that holds a code in clear text. Its {@link #toString()}
 * hides the code and the target, so logging it by mistake leaks nothing.
 */
public record OutgoingCode(
        String userId,
        CodeType codeType,
        CodeFormat format,
        DeliveryMethod deliveryMethod,
        String deliveryTarget,
        String maskedTarget,
        String code,
        Instant expiresAt,
        Locale locale,
        Optional<String> context) {

    public OutgoingCode {
        context = context == null ? Optional.empty() : context;
    }

    public OutgoingCode(String userId, CodeType codeType, CodeFormat format, DeliveryMethod deliveryMethod,
                        String deliveryTarget, String maskedTarget, String code, Instant expiresAt) {
        this(userId, codeType, format, deliveryMethod, deliveryTarget, maskedTarget, code, expiresAt, Locale.ENGLISH,
                Optional.empty());
    }

    @Override
    public String toString() {
        return "OutgoingCode[userId=" + userId + ", codeType=" + codeType + ", format=" + format
                + ", deliveryMethod=" + deliveryMethod + ", to=" + maskedTarget + ", code=<redacted>, expiresAt="
                + expiresAt + ", locale=" + locale.toLanguageTag() + "]";
    }
}

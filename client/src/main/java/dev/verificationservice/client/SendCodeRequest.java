package dev.verificationservice.client;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code POST /v1/codes}: send a new code to a person. Sending invalidates the user's earlier codes of the type.
 *
 * @param userId         the application's id of the user (1 to 128 of {@code [A-Za-z0-9._@+:-]})
 * @param codeType       what the code is for
 * @param deliveryMethod EMAIL or SMS (must suit the code type)
 * @param deliveryTarget an email address, or an E.164 phone number such as {@code +447700123456}
 * @param format         NUMERIC or LINK; empty: the service's default for the type
 * @param codeLength     digits of a NUMERIC code (6 to 10); empty: the service's default (6)
 * @param client         the person's request, for the audit log and the per-IP limit
 * @param humanVerified  the application checked a human itself (its own CAPTCHA): an SMS passes its number range's
 *                       open breaker; only an API key the operator permitted may send it (else a 403)
 */
public record SendCodeRequest(String userId, CodeType codeType, DeliveryMethod deliveryMethod, String deliveryTarget,
                              Optional<CodeFormat> format, OptionalInt codeLength, ClientContext client,
                              boolean humanVerified) {

    public SendCodeRequest {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(codeType, "codeType");
        Objects.requireNonNull(deliveryMethod, "deliveryMethod");
        Objects.requireNonNull(deliveryTarget, "deliveryTarget");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(codeLength, "codeLength");
        Objects.requireNonNull(client, "client");
    }

    public SendCodeRequest(String userId, CodeType codeType, DeliveryMethod deliveryMethod, String deliveryTarget,
                           Optional<CodeFormat> format, OptionalInt codeLength, ClientContext client) {
        this(userId, codeType, deliveryMethod, deliveryTarget, format, codeLength, client, false);
    }

    /** A request with the service's defaults for everything optional. */
    public static SendCodeRequest of(String userId, CodeType codeType, DeliveryMethod deliveryMethod,
                                     String deliveryTarget) {
        return builder(userId, codeType, deliveryMethod, deliveryTarget).build();
    }

    /** A builder for the optional parts: format, code length, client context. */
    public static Builder builder(String userId, CodeType codeType, DeliveryMethod deliveryMethod,
                                  String deliveryTarget) {
        return new Builder(userId, codeType, deliveryMethod, deliveryTarget);
    }

    /** Builds a {@link SendCodeRequest}. Not thread-safe. */
    public static final class Builder {
        private final String userId;
        private final CodeType codeType;
        private final DeliveryMethod deliveryMethod;
        private final String deliveryTarget;
        private Optional<CodeFormat> format = Optional.empty();
        private OptionalInt codeLength = OptionalInt.empty();
        private ClientContext client = ClientContext.none();
        private boolean humanVerified;

        private Builder(String userId, CodeType codeType, DeliveryMethod deliveryMethod, String deliveryTarget) {
            this.userId = userId;
            this.codeType = codeType;
            this.deliveryMethod = deliveryMethod;
            this.deliveryTarget = deliveryTarget;
        }

        public Builder format(CodeFormat format) {
            this.format = Optional.of(format);
            return this;
        }

        public Builder codeLength(int digits) {
            this.codeLength = OptionalInt.of(digits);
            return this;
        }

        public Builder client(ClientContext client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /** The application checked a human itself: see {@link SendCodeRequest#humanVerified}. */
        public Builder humanVerified(boolean value) {
            this.humanVerified = value;
            return this;
        }

        public SendCodeRequest build() {
            return new SendCodeRequest(userId, codeType, deliveryMethod, deliveryTarget, format, codeLength, client,
                    humanVerified);
        }
    }
}

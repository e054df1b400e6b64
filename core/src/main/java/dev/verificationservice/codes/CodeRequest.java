package dev.verificationservice.codes;

import dev.verificationservice.audit.ClientContext;
import java.util.Optional;

/**
 * A request to send a code.
 *
 * @param format       empty for the code type's default
 * @param numericLength empty for {@value CodeFormat#DEFAULT_NUMERIC_LENGTH} digits
 */
public record CodeRequest(
        String userId,
        CodeType codeType,
        DeliveryMethod deliveryMethod,
        String deliveryTarget,
        Optional<CodeFormat> format,
        Optional<Integer> numericLength,
        ClientContext client) {

    public CodeRequest {
        client = client == null ? ClientContext.none() : client;
        format = format == null ? Optional.empty() : format;
        numericLength = numericLength == null ? Optional.empty() : numericLength;
    }

    public static CodeRequest of(String userId, CodeType codeType, DeliveryMethod deliveryMethod,
                                 String deliveryTarget) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, Optional.empty(), Optional.empty(),
                ClientContext.none());
    }

    public CodeRequest withFormat(CodeFormat codeFormat) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, Optional.of(codeFormat),
                numericLength, client);
    }

    public CodeRequest withClient(ClientContext context) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, context);
    }
}

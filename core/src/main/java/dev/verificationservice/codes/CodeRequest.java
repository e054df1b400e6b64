package dev.verificationservice.codes;

import dev.verificationservice.audit.ClientContext;
import java.util.Locale;
import java.util.Optional;

/**
 * A request to send a code.
 *
 * @param format       empty for the code type's default
 * @param numericLength empty for {@value CodeFormat#DEFAULT_NUMERIC_LENGTH} digits
 * @param locale       the language of the message (BCP 47); empty: the service chooses (see {@link MessageLocales})
 * @param context      what the code approves ("Pay 120.00 EUR to ACME"), at most 200 characters: shown in the
 *                     message, and the code verifies only with the same context (PSD2 dynamic linking)
 * @param humanVerified the caller checked a human itself (its own CAPTCHA): an SMS goes through its range's open
 *                      breaker, audited. Only a caller permitted to say so may pass it (the server checks its key)
 */
public record CodeRequest(
        String userId,
        CodeType codeType,
        DeliveryMethod deliveryMethod,
        String deliveryTarget,
        Optional<CodeFormat> format,
        Optional<Integer> numericLength,
        ClientContext client,
        Optional<Locale> locale,
        Optional<String> context,
        boolean humanVerified) {

    public CodeRequest {
        client = client == null ? ClientContext.none() : client;
        format = format == null ? Optional.empty() : format;
        numericLength = numericLength == null ? Optional.empty() : numericLength;
        locale = locale == null ? Optional.empty() : locale;
        context = context == null ? Optional.empty() : context.filter(text -> !text.isEmpty());
    }

    public CodeRequest(String userId, CodeType codeType, DeliveryMethod deliveryMethod, String deliveryTarget,
                       Optional<CodeFormat> format, Optional<Integer> numericLength, ClientContext client,
                       Optional<Locale> locale, Optional<String> context) {
        this(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, client, locale, context, false);
    }

    public CodeRequest(String userId, CodeType codeType, DeliveryMethod deliveryMethod, String deliveryTarget,
                       Optional<CodeFormat> format, Optional<Integer> numericLength, ClientContext client) {
        this(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, client, Optional.empty(),
                Optional.empty());
    }

    public static CodeRequest of(String userId, CodeType codeType, DeliveryMethod deliveryMethod,
                                 String deliveryTarget) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, Optional.empty(), Optional.empty(),
                ClientContext.none());
    }

    public CodeRequest withFormat(CodeFormat codeFormat) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, Optional.of(codeFormat),
                numericLength, client, locale, context, humanVerified);
    }

    public CodeRequest withClient(ClientContext clientContext) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, clientContext,
                locale, context, humanVerified);
    }

    public CodeRequest withLocale(Locale messageLocale) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, client,
                Optional.of(messageLocale), context, humanVerified);
    }

    public CodeRequest withContext(String approved) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, client,
                locale, Optional.ofNullable(approved), humanVerified);
    }

    public CodeRequest withHumanVerified(boolean value) {
        return new CodeRequest(userId, codeType, deliveryMethod, deliveryTarget, format, numericLength, client,
                locale, context, value);
    }
}

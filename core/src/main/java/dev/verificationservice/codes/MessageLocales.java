package dev.verificationservice.codes;

import java.util.Locale;
import java.util.Optional;

/**
 * Chooses the language of a code's message before it is sent, so that the answer and the audit entry can say
 * which one was used. The server's implementation knows its templates and their fallback chain
 * ({@code pt-BR} → {@code pt} → the default) and gives an SMS without a requested locale the language of the
 * number's country.
 */
@FunctionalInterface
public interface MessageLocales {

    /**
     * @param requested        the request's {@code locale}, if any
     * @param method           EMAIL or SMS
     * @param normalizedTarget the address, or the number in E.164
     */
    Locale choose(Optional<Locale> requested, DeliveryMethod method, String normalizedTarget);

    /** The requested locale, else English: for a library user without templates of their own. */
    static MessageLocales requestedOrEnglish() {
        return (requested, method, target) -> requested.orElse(Locale.ENGLISH);
    }
}

package dev.verificationservice.codes;

import java.util.Objects;

/**
 * How a code reaches its person: the channel that sends it and the rule that picks the language of its message.
 *
 * @param sender  the channel (email, SMS, the development outbox, or a routing of them)
 * @param locales which language a message is written in, from the request and the target
 */
public record CodeDelivery(CodeSender sender, MessageLocales locales) {

    public CodeDelivery {
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(locales, "locales");
    }
}

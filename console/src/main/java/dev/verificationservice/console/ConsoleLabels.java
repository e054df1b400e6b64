package dev.verificationservice.console;

import dev.verificationservice.attempts.CountedAttempts;
import java.util.Locale;
import java.util.Map;

/**
 * The words a support person reads for the API's enum names: "Email verification" for {@code EMAIL_VERIFICATION},
 * "Wrong guesses: email verification" for {@code VERIFY_EMAIL_VERIFICATION}, "Wrong guesses in a row: TOTP" for
 * {@code VERIFY_TOTP_CONSECUTIVE}, "Code sent" for {@code CODE_SENT}.
 * The pages show the words and keep the name in a {@code title}, so the two can be matched with the API and the
 * audit; a name this class does not know is shown in the same plain form.
 */
public final class ConsoleLabels {

    /** The rate-limit actions' prefixes, in the words the lock-out and limit rows use. */
    private static final Map<String, String> ACTION_PREFIXES = Map.of(
            "SEND_", "Code requests: ",
            "VERIFY_", "Wrong guesses: ",
            "RESEND_", "Resend cooldown: ");

    /** Model attribute name under which the pages find this ({@code ${labels.of(name)}}). */
    static final String ATTRIBUTE = "labels";

    /** One name in words: an action by its kind and factor, anything else in sentence case. */
    public String of(String name) {
        if (name == null || name.isBlank()) {
            return "";
        }
        if (name.startsWith("VERIFY_") && name.endsWith(CountedAttempts.CONSECUTIVE_SUFFIX)
                && name.length() > "VERIFY_".length() + CountedAttempts.CONSECUTIVE_SUFFIX.length()) {
            return "Wrong guesses in a row: " + lower(name.substring("VERIFY_".length(),
                    name.length() - CountedAttempts.CONSECUTIVE_SUFFIX.length()));
        }
        for (Map.Entry<String, String> prefix : ACTION_PREFIXES.entrySet()) {
            if (name.startsWith(prefix.getKey()) && name.length() > prefix.getKey().length()) {
                return prefix.getValue() + lower(name.substring(prefix.getKey().length()));
            }
        }
        return words(name);
    }

    /** A factor's name within a sentence: lower case, but SMS and TOTP as people write them. */
    private static String lower(String name) {
        String text = words(name);
        return text.startsWith("SMS") || text.startsWith("TOTP") ? text
                : Character.toLowerCase(text.charAt(0)) + text.substring(1);
    }

    /** {@code CODE_VERIFICATION_FAILED} -> "Code verification failed"; SMS and LINK stay as people write them. */
    private static String words(String name) {
        String[] parts = name.toLowerCase(Locale.ROOT).split("_");
        StringBuilder text = new StringBuilder();
        for (String part : parts) {
            if (part.isEmpty()) {
                continue;
            }
            if (!text.isEmpty()) {
                text.append(' ');
            }
            text.append(part.equals("sms") ? "SMS" : part.equals("totp") ? "TOTP" : part);
        }
        return text.isEmpty() ? name : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}

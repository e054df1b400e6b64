package dev.verificationservice.server.delivery;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.OutgoingCode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Subject and body of a code message, per code type and format. Placeholders: {@code {code}} (the code),
 * {@code {link}} (the link URL with the code in it, for LINK codes) and {@code {minutes}} (time left).
 * Any template can be replaced with a property {@code verification.templates.<CODE_TYPE>.subject} or
 * {@code verification.templates.<CODE_TYPE>.<FORMAT>.body}.
 */
public final class MessageRenderer {

    /** What goes out: a subject for email, and the body for both channels. */
    public record RenderedMessage(String subject, String body) {
        @Override
        public String toString() {
            return "RenderedMessage[subject=" + subject + ", body=<redacted>]";
        }
    }

    private static final String IGNORE = "If you did not ask for this, you can ignore this message.";
    private static final Map<String, String> DEFAULTS = Map.ofEntries(
            Map.entry("EMAIL_VERIFICATION.subject", "Your email verification code"),
            Map.entry("PHONE_VERIFICATION.subject", "Your phone verification code"),
            Map.entry("PASSWORD_RESET.subject", "Reset your password"),
            Map.entry("EMAIL_VERIFICATION.NUMERIC.body",
                    "Your email verification code is {code}. It expires in {minutes} minutes. " + IGNORE),
            Map.entry("PHONE_VERIFICATION.NUMERIC.body",
                    "Your verification code is {code}. It expires in {minutes} minutes."),
            Map.entry("PASSWORD_RESET.NUMERIC.body",
                    "Your password reset code is {code}. It expires in {minutes} minutes. " + IGNORE),
            Map.entry("EMAIL_VERIFICATION.LINK.body",
                    "Confirm your email address by opening this link: {link}\nIt expires in {minutes} minutes. " + IGNORE),
            Map.entry("PHONE_VERIFICATION.LINK.body", "Confirm your phone number: {link} (expires in {minutes} minutes)"),
            Map.entry("PASSWORD_RESET.LINK.body",
                    "Reset your password by opening this link: {link}\nIt expires in {minutes} minutes. " + IGNORE));

    private final Map<String, String> overrides;
    private final String linkUrl;
    private final java.time.Clock clock;

    /**
     * @param linkUrl URL a LINK code is put into; {@code {code}} marks where (URL-encoded)
     */
    public MessageRenderer(Map<String, String> overrides, String linkUrl, java.time.Clock clock) {
        this.overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
        this.linkUrl = linkUrl;
        this.clock = clock;
    }

    public RenderedMessage render(OutgoingCode message) {
        CodeType type = message.codeType();
        CodeFormat format = message.format();
        long minutes = Math.max(1, (Duration.between(clock.instant(), message.expiresAt()).toSeconds() + 59) / 60);
        String link = linkUrl.replace("{code}", URLEncoder.encode(message.code(), StandardCharsets.UTF_8));
        String body = template(type + "." + format + ".body")
                .replace("{link}", link)
                .replace("{code}", message.code())
                .replace("{minutes}", Long.toString(minutes));
        return new RenderedMessage(template(type + ".subject"), body);
    }

    private String template(String key) {
        return overrides.getOrDefault(key, DEFAULTS.get(key));
    }
}

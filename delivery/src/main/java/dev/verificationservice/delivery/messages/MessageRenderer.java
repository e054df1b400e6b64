package dev.verificationservice.delivery.messages;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.OutgoingCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Renders a code's message in its language ({@link OutgoingCode#locale()}) from the {@link MessageTemplates}.
 *
 * <ul>
 *   <li><b>SMS</b>: the template {@code <CODE_TYPE>.<FORMAT>.sms}. When a WebOTP domain is configured, a NUMERIC
 *   code's SMS ends with the line {@code @<domain> #<code>} (WebOTP, and the Android SMS User Consent API), so
 *   the browser or the phone can offer the code. A message that needs UCS-2 and more than one segment is sent in
 *   GSM-7 instead when the template's own text can be written in it without its accents ({@code ó → o}, as
 *   providers' "smart encoding" does); the code, the link and the context are never changed.</li>
 *   <li><b>Email</b>: a subject, a plain-text part and an HTML part (inline styles only, no image, no external
 *   style sheet): the context first when there is one, then the code large and monospaced or a button-like link
 *   (with the URL written out below it), the expiry in minutes, and the note to ignore an unrequested message.</li>
 * </ul>
 *
 * <p>Placeholders are replaced in one pass, so a context that holds {@code {code}} is shown as written, never
 * filled in. A template line holding {@code {context}} is left out when the code approves nothing.
 */
public final class MessageRenderer {

    /** What goes out: a subject for email, and the body for both channels (the text part for email). */
    public record RenderedMessage(String subject, String body) {
        @Override
        public String toString() {
            return "RenderedMessage[subject=" + subject + ", body=<redacted>]";
        }
    }

    /** An email: the subject, the plain-text part and the HTML part, in {@code locale}. */
    public record RenderedEmail(String subject, String text, String html, Locale locale) {
        @Override
        public String toString() {
            return "RenderedEmail[subject=" + subject + ", locale=" + locale.toLanguageTag() + ", text=<redacted>]";
        }
    }

    /** An SMS and the segments it takes. */
    public record RenderedSms(String body, SmsSegments segments) {
        @Override
        public String toString() {
            return "RenderedSms[" + segments + ", body=<redacted>]";
        }
    }

    private static final String LAYOUT = resource("messages/email.html");
    private static final String MONOSPACE = "font-family:'SFMono-Regular',Menlo,Consolas,'Liberation Mono','Courier New',"
            + "monospace;";
    private static final String LINK_COLOUR = "#0b57d0";

    private final MessageTemplates templates;
    private final String linkUrl;
    /** The link URL of a type whose links open elsewhere (LOGIN: the application's login page). */
    private final Map<CodeType, String> linkUrls;
    private final Optional<String> webOtpDomain;
    private final Clock clock;

    /**
     * @param linkUrl      URL a LINK code is put into; {@code {code}} marks where (URL-encoded)
     * @param webOtpDomain the host name of the WebOTP line, if any
     */
    public MessageRenderer(MessageTemplates templates, String linkUrl, Optional<String> webOtpDomain, Clock clock) {
        this(templates, linkUrl, Map.of(), webOtpDomain, clock);
    }

    private MessageRenderer(MessageTemplates templates, String linkUrl, Map<CodeType, String> linkUrls,
                            Optional<String> webOtpDomain, Clock clock) {
        this.templates = templates;
        this.linkUrl = linkUrl;
        this.linkUrls = Map.copyOf(linkUrls);
        this.webOtpDomain = webOtpDomain;
        this.clock = clock;
    }

    /** This renderer with the LINK codes of {@code type} put into {@code url} ({@code {code}} marks where). */
    public MessageRenderer withLinkUrl(CodeType type, String url) {
        Map<CodeType, String> urls = new HashMap<>(linkUrls);
        urls.put(type, url);
        return new MessageRenderer(templates, linkUrl, urls, webOtpDomain, clock);
    }

    /** The shipped texts with these overrides ({@code verification.templates.*}), and no WebOTP line. */
    public MessageRenderer(Map<String, String> overrides, String linkUrl, Clock clock) {
        this(MessageTemplates.withOverrides(overrides), linkUrl, Optional.empty(), clock);
    }

    public MessageTemplates templates() {
        return templates;
    }

    /** The message as its channel sends it: the SMS, or the email's subject and text part. */
    public RenderedMessage render(OutgoingCode message) {
        if (message.deliveryMethod() == DeliveryMethod.SMS) {
            return new RenderedMessage(null, renderSms(message).body());
        }
        RenderedEmail email = renderEmail(message);
        return new RenderedMessage(email.subject(), email.text());
    }

    // ---------------------------------------------------------------- SMS

    public RenderedSms renderSms(OutgoingCode message) {
        Locale locale = message.locale();
        String key = message.codeType() + "." + message.format();
        // An override of the whole message (".body") served SMS too before SMS had a template of its own.
        String template = templates.overridden(locale, key + ".sms")
                .or(() -> templates.overridden(locale, key + ".body"))
                .orElseGet(() -> templates.shippedText(locale, key + ".sms"));
        Map<String, String> values = values(message);
        String body = sms(template, values, message, UnaryOperator.identity());
        SmsSegments segments = SmsSegments.of(body);
        if (segments.encoding() == SmsSegments.Encoding.UCS_2 && segments.segments() > 1) {
            // The template's own words without their accents, if that makes the message cheaper.
            String plain = sms(template, values, message, text -> SmsSegments.toGsm7(text).orElse(text));
            SmsSegments plainSegments = SmsSegments.of(plain);
            if (plainSegments.segments() < segments.segments()) {
                return new RenderedSms(plain, plainSegments);
            }
        }
        return new RenderedSms(body, segments);
    }

    private String sms(String template, Map<String, String> values, OutgoingCode message, UnaryOperator<String> literal) {
        String body = fill(template, values, message.context().isPresent(), literal).strip();
        if (message.format() == CodeFormat.NUMERIC && webOtpDomain.isPresent()) {
            // WebOTP: the last line is "@" the origin's host, a space, "#" the code.
            body = body + "\n" + webOtpLine(webOtpDomain.get(), message.code());
        }
        return body;
    }

    /** The WebOTP line for a code: {@code @<domain> #<code>}. */
    public static String webOtpLine(String domain, String code) {
        return "@" + domain + " #" + code;
    }

    // ---------------------------------------------------------------- email

    public RenderedEmail renderEmail(OutgoingCode message) {
        Locale locale = message.locale();
        CodeType type = message.codeType();
        CodeFormat format = message.format();
        Map<String, String> values = values(message);
        boolean hasContext = message.context().isPresent();
        String subject = fill(templates.get(locale, type + ".subject"), values, false, UnaryOperator.identity()).strip();
        Optional<String> wholeBody = templates.overridden(locale, type + "." + format + ".body");
        String text;
        String content;
        if (wholeBody.isPresent()) {
            text = fill(wholeBody.get(), values, hasContext, UnaryOperator.identity()).strip();
            content = "<p style=\"margin:0;\">" + fill(wholeBody.get(), htmlValues(message, values), hasContext,
                    MessageRenderer::htmlText).strip() + "</p>";
        } else {
            text = emailText(message, values);
            content = emailHtml(message, values);
        }
        String html = fill(LAYOUT, Map.of("lang", escape(locale.toLanguageTag()), "subject", escape(subject),
                "content", content), false, UnaryOperator.identity());
        return new RenderedEmail(subject, text, html, locale);
    }

    private String emailText(OutgoingCode message, Map<String, String> values) {
        Locale locale = message.locale();
        String key = message.codeType() + "." + message.format();
        boolean hasContext = message.context().isPresent();
        StringBuilder text = new StringBuilder();
        text.append(line(locale, key + ".intro", values, false)).append("\n\n");
        if (hasContext) {
            text.append(line(locale, message.format() + ".context", values, true)).append("\n\n");
        }
        if (message.format() == CodeFormat.NUMERIC) {
            text.append("    ").append(message.code()).append("\n\n");
        } else {
            text.append(values.get("link")).append("\n\n");
        }
        text.append(line(locale, message.format() + ".expiry", values, false)).append("\n\n");
        text.append(line(locale, "ignore", values, false)).append('\n');
        return text.toString();
    }

    private String emailHtml(OutgoingCode message, Map<String, String> values) {
        Locale locale = message.locale();
        String key = message.codeType() + "." + message.format();
        StringBuilder html = new StringBuilder();
        html.append("<p style=\"margin:0 0 20px 0;\">").append(escape(line(locale, key + ".intro", values, false)))
                .append("</p>\n");
        if (message.context().isPresent()) {
            html.append("<p style=\"margin:0 0 20px 0;padding:12px 16px;border-left:4px solid ").append(LINK_COLOUR)
                    .append(";background-color:#eef3fd;color:#1f2328;\">")
                    .append(escape(line(locale, message.format() + ".context", values, true))).append("</p>\n");
        }
        if (message.format() == CodeFormat.NUMERIC) {
            html.append("<p style=\"margin:0;text-align:center;\"><span style=\"display:inline-block;padding:12px 20px;")
                    .append("border:1px solid #d0d7de;border-radius:6px;background-color:#f6f8fa;").append(MONOSPACE)
                    .append("font-size:32px;line-height:40px;font-weight:bold;letter-spacing:6px;color:#1f2328;\">")
                    .append(escape(message.code())).append("</span></p>\n");
        } else {
            String href = escape(values.get("link"));
            html.append("<p style=\"margin:0;text-align:center;\"><a href=\"").append(href)
                    .append("\" style=\"display:inline-block;padding:12px 28px;border-radius:6px;background-color:")
                    .append(LINK_COLOUR).append(";color:#ffffff;font-size:16px;line-height:24px;font-weight:bold;")
                    .append("text-decoration:none;\">")
                    .append(escape(line(locale, message.codeType() + ".LINK.button", values, false))).append("</a></p>\n")
                    .append("<p style=\"margin:16px 0 0 0;font-size:13px;line-height:20px;color:#57606a;\">")
                    .append(escape(line(locale, "linkHint", values, false))).append("<br><a href=\"").append(href)
                    .append("\" style=\"color:").append(LINK_COLOUR).append(";word-break:break-all;\">").append(href)
                    .append("</a></p>\n");
        }
        html.append("<p style=\"margin:20px 0 0 0;color:#57606a;\">")
                .append(escape(line(locale, message.format() + ".expiry", values, false))).append("</p>\n");
        html.append("<p style=\"margin:24px 0 0 0;font-size:13px;line-height:20px;color:#6e7781;\">")
                .append(escape(line(locale, "ignore", values, false))).append("</p>");
        return html.toString();
    }

    /** One line of an email, filled in (as plain text). */
    private String line(Locale locale, String key, Map<String, String> values, boolean hasContext) {
        return fill(templates.get(locale, key), values, hasContext, UnaryOperator.identity()).strip();
    }

    /** The values of an overridden email body in HTML: the code monospaced, the link clickable, all escaped. */
    private static Map<String, String> htmlValues(OutgoingCode message, Map<String, String> values) {
        Map<String, String> html = new HashMap<>();
        html.put("code", "<span style=\"" + MONOSPACE + "font-size:24px;font-weight:bold;letter-spacing:3px;\">"
                + escape(message.code()) + "</span>");
        String href = escape(values.get("link"));
        html.put("link", "<a href=\"" + href + "\" style=\"color:" + LINK_COLOUR + ";\">" + href + "</a>");
        html.put("minutes", escape(values.get("minutes")));
        html.put("context", escape(values.get("context")));
        return html;
    }

    // ---------------------------------------------------------------- filling in

    private Map<String, String> values(OutgoingCode message) {
        long minutes = Math.max(1, (Duration.between(clock.instant(), message.expiresAt()).toSeconds() + 59) / 60);
        Map<String, String> values = new HashMap<>();
        values.put("code", message.code());
        values.put("link", linkUrls.getOrDefault(message.codeType(), linkUrl).replace("{code}", URLEncoder.encode(message.code(), StandardCharsets.UTF_8)));
        values.put("minutes", Long.toString(minutes));
        values.put("context", message.context().orElse(""));
        return values;
    }

    /**
     * {@code template} with its placeholders replaced in one pass (a value is never read for placeholders) and its
     * own text passed through {@code literal}; without a context, every line holding {@code {context}} is left out.
     */
    static String fill(String template, Map<String, String> values, boolean hasContext, UnaryOperator<String> literal) {
        String source = hasContext ? template : template.lines().filter(line -> !line.contains("{context}"))
                .collect(Collectors.joining("\n"));
        StringBuilder out = new StringBuilder(source.length() + 64);
        int position = 0;
        while (position < source.length()) {
            int open = source.indexOf('{', position);
            int close = open < 0 ? -1 : source.indexOf('}', open);
            String name = close < 0 ? null : source.substring(open + 1, close);
            if (name == null) {
                out.append(literal.apply(source.substring(position)));
                break;
            }
            if (values.containsKey(name)) {
                out.append(literal.apply(source.substring(position, open))).append(values.get(name));
            } else {
                out.append(literal.apply(source.substring(position, open + 1)));
                close = open;
            }
            position = close + 1;
        }
        return out.toString();
    }

    /** Text for HTML: escaped, and its line breaks kept. */
    private static String htmlText(String text) {
        return escape(text).replace("\n", "<br>\n");
    }

    /** Escapes text for HTML content and attribute values. */
    public static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static String resource(String name) {
        try (InputStream in = MessageRenderer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }
}

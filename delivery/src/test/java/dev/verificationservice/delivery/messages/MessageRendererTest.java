package dev.verificationservice.delivery.messages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.OutgoingCode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Rendering: the WebOTP line, the context line, overrides, accents for GSM-7, escaping in HTML. */
class MessageRendererTest {

    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
    static final Instant EXPIRES = Instant.parse("2026-11-30T10:15:00Z");
    static final String LINK_URL = "https://app.example.com/reset?code={code}";

    static OutgoingCode sms(CodeType type, CodeFormat format, String code, String locale, String context) {
        return new OutgoingCode("u", type, format, DeliveryMethod.SMS, "+447700123456", "+44******3456", code, EXPIRES,
                Locale.forLanguageTag(locale), Optional.ofNullable(context));
    }

    static OutgoingCode email(CodeType type, CodeFormat format, String code, String locale, String context) {
        return new OutgoingCode("u", type, format, DeliveryMethod.EMAIL, "jane@example.com", "j***@example.com", code,
                EXPIRES, Locale.forLanguageTag(locale), Optional.ofNullable(context));
    }

    private final MessageRenderer renderer = new MessageRenderer(MessageTemplates.shipped(), LINK_URL,
            Optional.of("app.example.com"), CLOCK);

    @Test
    void aNumericSmsEndsWithTheWebOtpLine() {
        String body = renderer.renderSms(sms(CodeType.PHONE_VERIFICATION, CodeFormat.NUMERIC, "123456", "en", null)).body();
        assertThat(body).isEqualTo("Your verification code is 123456. It expires in 15 minutes. Do not share it with "
                + "anyone.\n@app.example.com #123456");
        // A LINK SMS has no code to type, so no WebOTP line.
        assertThat(renderer.renderSms(sms(CodeType.PASSWORD_RESET, CodeFormat.LINK, "A".repeat(43), "en", null)).body())
                .doesNotContain("@app.example.com").contains("https://app.example.com/reset?code=" + "A".repeat(43));
    }

    @Test
    void theContextLineAppearsOnlyWithAContextAndIsNeverFilledIn() {
        String with = renderer.renderSms(sms(CodeType.PHONE_VERIFICATION, CodeFormat.NUMERIC, "123456", "en",
                "Pay 120.00 EUR to {code}")).body();
        assertThat(with).isEqualTo("Your verification code is 123456. It expires in 15 minutes. Do not share it with "
                + "anyone.\nThis code approves: Pay 120.00 EUR to {code}\n@app.example.com #123456");
        String without = renderer.renderSms(sms(CodeType.PHONE_VERIFICATION, CodeFormat.NUMERIC, "123456", "de", null)).body();
        assertThat(without).doesNotContain("frei").startsWith("Ihr Bestätigungscode lautet 123456.");
    }

    @Test
    void accentsComeOffOnlyWhenThatSavesASegmentAndNeverFromTheContext() {
        // Short enough for one UCS-2 segment: sent as written.
        MessageRenderer plain = new MessageRenderer(MessageTemplates.shipped(), LINK_URL, Optional.empty(), CLOCK);
        MessageRenderer.RenderedSms japanese = plain.renderSms(sms(CodeType.PHONE_VERIFICATION, CodeFormat.NUMERIC,
                "123456", "ja", null));
        assertThat(japanese.body()).isEqualTo("認証コード：123456\n有効期限は15分です。");
        assertThat(japanese.segments()).isEqualTo(new SmsSegments(SmsSegments.Encoding.UCS_2, 24, 1));
        // Polish needs more than 70 UCS-2 characters: GSM-7 without the accents, one segment.
        MessageRenderer.RenderedSms polish = plain.renderSms(sms(CodeType.PHONE_VERIFICATION, CodeFormat.NUMERIC,
                "123456", "pl", null));
        assertThat(polish.body()).isEqualTo("Twoj kod weryfikacyjny to 123456. Kod jest wazny przez 15 min. Nie podawaj go nikomu.");
        assertThat(polish.segments().encoding()).isEqualTo(SmsSegments.Encoding.GSM_7);
        // The context is shown exactly as given, even when that costs segments.
        MessageRenderer.RenderedSms withContext = plain.renderSms(sms(CodeType.PHONE_VERIFICATION, CodeFormat.NUMERIC,
                "123456", "pl", "Zapłać 99,00 zł dla Sklep Łódź"));
        assertThat(withContext.body()).contains("Zapłać 99,00 zł dla Sklep Łódź");
        assertThat(withContext.segments().encoding()).isEqualTo(SmsSegments.Encoding.UCS_2);
    }

    @Test
    void anEmailHasTextAndHtmlInItsLanguageWithTheContextEscaped() {
        MessageRenderer.RenderedEmail email = renderer.renderEmail(email(CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC,
                "123456", "de", "Zahlung <b>120 €</b> an \"ACME\""));
        assertThat(email.subject()).isEqualTo("Ihr Bestätigungscode");
        assertThat(email.text()).contains("Geben Sie diesen Code ein", "    123456", "Der Code ist 15 Minuten gültig.",
                "Mit diesem Code geben Sie frei: Zahlung <b>120 €</b> an \"ACME\"");
        assertThat(email.html()).contains("<html lang=\"de\">", ">123456</span>",
                "Mit diesem Code geben Sie frei: Zahlung &lt;b&gt;120 €&lt;/b&gt; an &quot;ACME&quot;")
                .contains("font-family:'SFMono-Regular'").doesNotContain("<b>", "<img", "<link", "<script", "@import");
        assertThat(email.html().indexOf("geben Sie frei")).isLessThan(email.html().indexOf(">123456<"));

        MessageRenderer.RenderedEmail link = renderer.renderEmail(email(CodeType.PASSWORD_RESET, CodeFormat.LINK,
                "Ab_-" + "x".repeat(39), "ja", null));
        assertThat(link.subject()).isEqualTo("パスワードの再設定");
        assertThat(link.html()).contains("<a href=\"https://app.example.com/reset?code=Ab_-" + "x".repeat(39) + "\"",
                ">パスワードを再設定する</a>", "有効期限は15分です").doesNotContain("承認");
        assertThat(link.text()).contains("https://app.example.com/reset?code=Ab_-" + "x".repeat(39));
    }

    @Test
    void aLoginLinkHasItsOwnTextsAndGoesToTheLoginLinkUrlWhileOtherTypesKeepTheirs() {
        MessageRenderer login = renderer.withLinkUrl(CodeType.LOGIN, "https://app.example.com/login/ott?token={code}");
        String code = "C".repeat(43);
        MessageRenderer.RenderedEmail english = login.renderEmail(email(CodeType.LOGIN, CodeFormat.LINK, code, "en",
                "Sign in"));
        assertThat(english.subject()).isEqualTo("Your sign-in link");
        assertThat(english.text()).contains("Open the link below to sign in.",
                "https://app.example.com/login/ott?token=" + code).doesNotContain("reset", "confirm");
        assertThat(english.html()).contains(">Sign in</a>");
        assertThat(login.renderEmail(email(CodeType.LOGIN, CodeFormat.LINK, code, "de", null)).subject())
                .isEqualTo("Ihr Anmeldelink");
        assertThat(login.renderEmail(email(CodeType.PASSWORD_RESET, CodeFormat.LINK, code, "en", null)).text())
                .contains("https://app.example.com/reset?code=" + code).doesNotContain("/login/ott");
    }

    @Test
    void theOldOverridesStillWorkForBothChannelsAndLocaleOverridesWin() {
        MessageRenderer custom = new MessageRenderer(Map.of(
                "PASSWORD_RESET.LINK.body", "ACME reset: {link}\nValid {minutes} min.\nFor: {context}",
                "de.PASSWORD_RESET.LINK.body", "ACME Zurücksetzen: {link}",
                "PASSWORD_RESET.subject", "ACME password reset"), LINK_URL, CLOCK);
        String code = "B".repeat(43);
        assertThat(custom.renderSms(sms(CodeType.PASSWORD_RESET, CodeFormat.LINK, code, "en", null)).body())
                .isEqualTo("ACME reset: https://app.example.com/reset?code=" + code + "\nValid 15 min.");
        assertThat(custom.renderSms(sms(CodeType.PASSWORD_RESET, CodeFormat.LINK, code, "de-AT", null)).body())
                .isEqualTo("ACME Zurücksetzen: https://app.example.com/reset?code=" + code);
        MessageRenderer.RenderedEmail email = custom.renderEmail(email(CodeType.PASSWORD_RESET, CodeFormat.LINK, code,
                "fr", "<x>"));
        assertThat(email.subject()).isEqualTo("ACME password reset");
        assertThat(email.text()).isEqualTo("ACME reset: https://app.example.com/reset?code=" + code
                + "\nValid 15 min.\nFor: <x>");
        assertThat(email.html()).contains("ACME reset: <a href=\"https://app.example.com/reset?code=" + code + "\"",
                "For: &lt;x&gt;", "<br>");
        // A numeric email without any override still shows the code large.
        assertThat(custom.renderEmail(email(CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, "654321", "en", null)).html())
                .contains("font-size:32px").contains(">654321</span>");
    }

    @Test
    void placeholdersAreFilledInOnePass() {
        assertThat(MessageRenderer.fill("a {code} b {unknown} {link", Map.of("code", "{link}", "link", "L"), false,
                text -> text)).isEqualTo("a {link} b {unknown} {link");
        assertThat(MessageRenderer.fill("one\n{context} here\ntwo", Map.of("context", "C"), false, text -> text))
                .isEqualTo("one\ntwo");
    }
}

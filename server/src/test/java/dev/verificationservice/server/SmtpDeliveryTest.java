package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.verificationservice.server.ApiClient.Answer;
import jakarta.mail.BodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * EMAIL codes go to a real SMTP server (GreenMail) on this machine, over plain SMTP ({@code NONE}) and without
 * logging in: the only plain-text setup the service accepts (a local relay; credentials are refused over
 * {@code NONE}, see {@code StartupTest}). The code that arrives verifies.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.smtp.host=127.0.0.1",
        "verification.smtp.security=NONE",
        "verification.smtp.from=Verification <no-reply@example.com>",
        "verification.link-url=https://app.example.com/reset?code={code}",
        "verification.templates.pt-BR.PASSWORD_RESET.subject=ACME: redefina sua senha",
        "verification.templates.EMAIL_VERIFICATION.LINK.button=Confirm with ACME"})
@Import(TestClockConfiguration.class)
class SmtpDeliveryTest {

    @RegisterExtension
    static final GreenMailExtension GREEN_MAIL = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort())
            // A local relay that takes mail without a login.
            .withConfiguration(GreenMailConfiguration.aConfig().withDisabledAuthentication())
            // Started once, before the service, which needs its port.
            .withPerMethodLifecycle(false);

    @LocalServerPort
    int port;

    ApiClient api;

    @DynamicPropertySource
    static void smtp(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.smtp.port", () -> GREEN_MAIL.getSmtp().getPort());
        registry.add("verification.data-dir", Files.createTempDirectory("verification-smtp-test")::toString);
    }

    @BeforeEach
    void connect() throws Exception {
        api = new ApiClient(port, AbstractApiTest.API_KEY);
        GREEN_MAIL.purgeEmailFromAllMailboxes();
    }

    @Test
    void aNumericCodeArrivesByEmailAndVerifies() throws Exception {
        Answer sent = api.post("/v1/codes", Map.of("userId", "mail-user-1", "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jane@example.com"));
        assertThat(sent.status()).isEqualTo(202);

        assertThat(GREEN_MAIL.waitForIncomingEmail(10_000, 1)).isTrue();
        MimeMessage message = GREEN_MAIL.getReceivedMessagesForDomain("example.com")[0];
        assertThat(message.getSubject()).isEqualTo("Your email verification code");
        assertThat(message.getFrom()[0].toString()).contains("no-reply@example.com");
        String body = parts(message).get(0);
        Matcher digits = Pattern.compile("\\b([0-9]{6})\\b").matcher(body);
        assertThat(digits.find()).as(body).isTrue();

        Answer verified = api.post("/v1/codes/verify", Map.of("code", digits.group(1), "userId", "mail-user-1",
                "codeType", "EMAIL_VERIFICATION"));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
    }

    @Test
    void aPasswordResetLinkArrivesByEmailAndVerifies() throws Exception {
        api.post("/v1/codes", Map.of("userId", "mail-user-2", "codeType", "PASSWORD_RESET",
                "deliveryMethod", "EMAIL", "deliveryTarget", "john@example.org"));

        assertThat(GREEN_MAIL.waitForIncomingEmail(10_000, 1)).isTrue();
        MimeMessage message = GREEN_MAIL.getReceivedMessagesForDomain("example.org")[0];
        assertThat(message.getSubject()).isEqualTo("Reset your password");
        Matcher link = Pattern.compile("https://app\\.example\\.com/reset\\?code=([A-Za-z0-9_%-]+)")
                .matcher(parts(message).get(0));
        assertThat(link.find()).isTrue();
        String code = URLDecoder.decode(link.group(1), StandardCharsets.UTF_8);

        Answer verified = api.post("/v1/codes/verify", Map.of("code", code, "codeType", "PASSWORD_RESET"));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.text("userId")).isEqualTo("mail-user-2");
    }

    @Test
    void withARealChannelThereIsNoOutboxAndUnconfiguredMethodsAreRefused() {
        Answer outbox = api.get("/dev/outbox");
        assertThat(outbox.status()).isEqualTo(404);
        assertThat(outbox.text("code")).isEqualTo("OUTBOX_DISABLED");

        Answer sms = api.post("/v1/codes", Map.of("userId", "mail-user-3", "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700123456"));
        assertThat(sms.status()).isEqualTo(400);
        assertThat(sms.text("field")).isEqualTo("deliveryMethod");
    }

    /**
     * A numeric code by email in German with a context: multipart/alternative with a text and an HTML part, both
     * with the code, in German, the context escaped in the HTML, nothing loaded from elsewhere.
     */
    @Test
    void anEmailIsTextAndHtmlInTheChosenLanguageWithTheCodeInBothAndTheContextEscaped() throws Exception {
        Answer sent = api.post("/v1/codes", Map.of("userId", "mail-user-4", "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "anna@example.de", "locale", "de-DE",
                "context", "Zahlung <b>120,00 €</b> an \"ACME & Söhne\""));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.text("locale")).isEqualTo("de");

        assertThat(GREEN_MAIL.waitForIncomingEmail(10_000, 1)).isTrue();
        MimeMessage message = GREEN_MAIL.getReceivedMessagesForDomain("example.de")[0];
        assertThat(message.getSubject()).isEqualTo("Ihr Bestätigungscode");
        assertThat(message.getContentLanguage()).containsExactly("de");
        assertThat(message.getContentType()).startsWith("multipart/alternative");
        MimeMultipart alternative = (MimeMultipart) message.getContent();
        assertThat(alternative.getCount()).isEqualTo(2);
        BodyPart textPart = alternative.getBodyPart(0);
        BodyPart htmlPart = alternative.getBodyPart(1);
        assertThat(textPart.isMimeType("text/plain")).isTrue();
        assertThat(htmlPart.isMimeType("text/html")).isTrue();
        assertThat(textPart.getContentType()).containsIgnoringCase("charset=UTF-8");
        assertThat(htmlPart.getContentType()).containsIgnoringCase("charset=UTF-8");
        String text = (String) textPart.getContent();
        String html = (String) htmlPart.getContent();

        Matcher digits = Pattern.compile("\\b([0-9]{6})\\b").matcher(text);
        assertThat(digits.find()).as(text).isTrue();
        String code = digits.group(1);
        assertThat(text).contains("Geben Sie diesen Code ein", "Der Code ist 15 Minuten gültig.",
                "Mit diesem Code geben Sie frei: Zahlung <b>120,00 €</b> an \"ACME & Söhne\"");
        assertThat(html).contains("<html lang=\"de\">", ">" + code + "</span>", "font-size:32px", "monospace",
                "Der Code ist 15 Minuten gültig.",
                "Mit diesem Code geben Sie frei: Zahlung &lt;b&gt;120,00 €&lt;/b&gt; an &quot;ACME &amp; Söhne&quot;");
        assertThat(html.toLowerCase(java.util.Locale.ROOT)).doesNotContain("<img", "<link", "<script", "@import",
                "url(", "src=\"http", "<b>");

        Answer wrongContext = api.post("/v1/codes/verify", Map.of("code", code, "userId", "mail-user-4",
                "codeType", "EMAIL_VERIFICATION"));
        assertThat(wrongContext.text("reason")).isEqualTo("NOT_FOUND");
        Answer verified = api.post("/v1/codes/verify", Map.of("code", code, "userId", "mail-user-4",
                "codeType", "EMAIL_VERIFICATION", "context", "Zahlung <b>120,00 €</b> an \"ACME & Söhne\""));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
    }

    /** A password-reset link in Japanese: a button-like link and the URL in both parts. */
    @Test
    void aLinkEmailHasAButtonAndTheUrlInBothParts() throws Exception {
        api.post("/v1/codes", Map.of("userId", "mail-user-5", "codeType", "PASSWORD_RESET",
                "deliveryMethod", "EMAIL", "deliveryTarget", "taro@example.jp", "locale", "ja"));

        assertThat(GREEN_MAIL.waitForIncomingEmail(10_000, 1)).isTrue();
        MimeMessage message = GREEN_MAIL.getReceivedMessagesForDomain("example.jp")[0];
        assertThat(message.getSubject()).isEqualTo("パスワードの再設定");
        List<String> parts = parts(message);
        Matcher link = Pattern.compile("https://app\\.example\\.com/reset\\?code=([A-Za-z0-9_-]{43})").matcher(parts.get(0));
        assertThat(link.find()).isTrue();
        assertThat(parts.get(0)).contains("パスワードを再設定するには", "このリンクの有効期限は15分です。");
        assertThat(parts.get(1)).contains("<a href=\"" + link.group() + "\"", ">パスワードを再設定する</a>",
                "display:inline-block", "このリンクの有効期限は15分です。");
        assertThat(parts.get(1).toLowerCase(java.util.Locale.ROOT)).doesNotContain("<img", "src=\"http");
    }

    /** Overrides as properties, for one language ({@code pt-BR}) and for all, as Spring binds them. */
    @Test
    void overridesForOneLanguageAndForAllReachTheMessage() throws Exception {
        api.post("/v1/codes", Map.of("userId", "mail-user-6", "codeType", "PASSWORD_RESET",
                "deliveryMethod", "EMAIL", "deliveryTarget", "ana@example.com.br", "locale", "pt-BR"));
        api.post("/v1/codes", Map.of("userId", "mail-user-7", "codeType", "EMAIL_VERIFICATION", "format", "LINK",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jan@example.nl", "locale", "nl"));

        assertThat(GREEN_MAIL.waitForIncomingEmail(10_000, 2)).isTrue();
        MimeMessage brazil = GREEN_MAIL.getReceivedMessagesForDomain("example.com.br")[0];
        assertThat(brazil.getSubject()).isEqualTo("ACME: redefina sua senha");
        assertThat(parts(brazil).get(1)).contains(">Redefinir senha</a>");
        MimeMessage dutch = GREEN_MAIL.getReceivedMessagesForDomain("example.nl")[0];
        assertThat(dutch.getSubject()).isEqualTo("Je verificatiecode");
        assertThat(parts(dutch).get(1)).contains(">Confirm with ACME</a>", "De link is 15 minuten geldig.");
    }

    /** The text and the HTML part of a multipart/alternative message, decoded. */
    static List<String> parts(MimeMessage message) throws Exception {
        MimeMultipart alternative = (MimeMultipart) message.getContent();
        return List.of((String) alternative.getBodyPart(0).getContent(), (String) alternative.getBodyPart(1).getContent());
    }
}

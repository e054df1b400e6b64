package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.verificationservice.server.ApiClient.Answer;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
        "verification.link-url=https://app.example.com/reset?code={code}"})
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
        String body = GreenMailUtil.getBody(message);
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
                .matcher(GreenMailUtil.getBody(message));
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
}

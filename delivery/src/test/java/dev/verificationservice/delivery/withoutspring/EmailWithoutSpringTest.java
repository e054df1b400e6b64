package dev.verificationservice.delivery.withoutspring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.verificationservice.Verification;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.delivery.email.SmtpSecurity;
import dev.verificationservice.delivery.email.SmtpSettings;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.testsupport.docs.ReadmeSnippets;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application without Spring (this module's classpath has none) builds the email channel and the message
 * texts itself ({@link EmailCodes}, the example docs/embedding.md shows) and sends a real code to a real SMTP
 * server on this machine (GreenMail, plain SMTP without a login, as a local relay); the code that arrives
 * verifies once, on a real SQLite file.
 */
class EmailWithoutSpringTest {

    @RegisterExtension
    static final GreenMailExtension GREEN_MAIL = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort())
            .withConfiguration(GreenMailConfiguration.aConfig().withDisabledAuthentication());

    private static final Clock CLOCK = Clock.systemUTC();
    private static final SecretKeyRing KEYS = SecretKeyRing.fromBase64(
            List.of(SecretKeyRing.generateBase64Key(new SecureRandom())));

    @TempDir
    Path dataDir;

    private SqliteVerificationStore store;

    @BeforeEach
    void open() {
        store = SqliteVerificationStore.open(dataDir, CLOCK);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void springIsNotOnTheClasspath() {
        assertThatThrownBy(() -> Class.forName("org.springframework.context.ApplicationContext"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void aCodeSentWithoutSpringArrivesInTheReadersLanguageAndVerifiesOnce() throws Exception {
        Verification verification = EmailCodes.verification(store, KEYS, localRelay(GREEN_MAIL.getSmtp().getPort()),
                CLOCK);

        IssueResult sent = verification.codes().issue(CodeRequest.of("plain-user-1", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "jane@example.com"));
        assertThat(sent).isInstanceOf(IssueResult.Issued.class);
        IssueResult german = verification.codes().issue(CodeRequest.of("plain-user-2", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "anna@example.de").withLocale(Locale.GERMANY));
        assertThat(german).isInstanceOf(IssueResult.Issued.class);

        assertThat(GREEN_MAIL.waitForIncomingEmail(10_000, 2)).isTrue();
        MimeMessage message = GREEN_MAIL.getReceivedMessagesForDomain("example.com")[0];
        assertThat(message.getSubject()).as("the application's override").isEqualTo("ACME: confirm your email address");
        assertThat(message.getFrom()[0].toString()).contains("no-reply@acme.example");
        assertThat(message.getContentType()).startsWith("multipart/alternative");
        String text = (String) ((MimeMultipart) message.getContent()).getBodyPart(0).getContent();
        Matcher digits = Pattern.compile("\\b([0-9]{6})\\b").matcher(text);
        assertThat(digits.find()).as(text).isTrue();
        MimeMessage inGerman = GREEN_MAIL.getReceivedMessagesForDomain("example.de")[0];
        assertThat(inGerman.getContentLanguage()).containsExactly("de");

        VerifyRequest verify = VerifyRequest.numeric(digits.group(1), "plain-user-1", CodeType.EMAIL_VERIFICATION);
        assertThat(verification.codes().verify(verify).valid()).isTrue();
        assertThat(verification.codes().verify(verify).valid()).as("a code is used up once").isFalse();
    }

    @Test
    void anSmtpServerThatCannotBeReachedIsAFailedDeliveryThatLeavesNoUsableCode() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Verification verification = EmailCodes.verification(store, KEYS, localRelay(closed), CLOCK);

        IssueResult sent = verification.codes().issue(CodeRequest.of("plain-user-3", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "john@example.com"));

        assertThat(sent).isInstanceOf(IssueResult.DeliveryFailed.class);
        assertThat(verification.codes().liveCodes("plain-user-3")).isEmpty();
    }

    @Test
    void docsEmbeddingShowsExactlyThisExample() throws IOException {
        ReadmeSnippets.assertReadmeShows(Path.of("../docs/embedding.md"),
                Path.of("src/test/java/dev/verificationservice/delivery/withoutspring/EmailCodes.java"));
    }

    /** GreenMail as a relay on this machine: plain SMTP, no login. */
    private static SmtpSettings localRelay(int port) {
        return new SmtpSettings("127.0.0.1", port, SmtpSecurity.NONE, null, null, "ACME <no-reply@acme.example>",
                Duration.ofSeconds(5));
    }
}

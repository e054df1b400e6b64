package dev.verificationservice.spring.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.delivery.email.SmtpSecurity;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.VerificationProperties.Smtp;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code VERIFICATION_SMTP_SECURITY=NONE}: only to a loopback host, never with credentials. */
class PlainSmtpRuleTest {

    private static Smtp smtp(String host, SmtpSecurity security, String username, String password) {
        return new Smtp(host, 25, username, password, security, "no-reply@localhost", Duration.ofSeconds(5));
    }

    @Test
    void loopbackHostsAreLiteralsOrLocalhostAndNothingIsLookedUp() {
        for (String host : new String[] {"localhost", "LOCALHOST", " localhost ", "127.0.0.1", "127.0.0.53", "127.255.255.254",
            "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"}) {
            assertThat(DeliveryAutoConfiguration.isLoopbackHost(host)).as(host).isTrue();
        }
        for (String host : new String[] {"smtp.example.com", "localhost.example.com", "127.0.0.1.nip.io", "10.0.0.1",
            "128.0.0.1", "0.0.0.0", "::", "fe80::1", "2001:db8::1", "127.1", "127.0.0.256", "0127.0.0.1", "", " ", "[]",
            "localhost:25", "::ffff:10.0.0.1"}) {
            assertThat(DeliveryAutoConfiguration.isLoopbackHost(host)).as(host).isFalse();
        }
        assertThat(DeliveryAutoConfiguration.isLoopbackHost(null)).isFalse();
    }

    @Test
    void noneIsRefusedOffLoopbackAndWithCredentialsWhateverTheHost() {
        assertThatThrownBy(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("mail.example.com", SmtpSecurity.NONE, null, null)))
                .isInstanceOf(StartupException.class).hasMessageContaining("VERIFICATION_SMTP_HOST");
        assertThatThrownBy(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("localhost", SmtpSecurity.NONE, "mailer", null)))
                .isInstanceOf(StartupException.class).hasMessageContaining("VERIFICATION_SMTP_USERNAME");
        assertThatThrownBy(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("127.0.0.1", SmtpSecurity.NONE, null, "pw-0123")))
                .isInstanceOf(StartupException.class).hasMessageContaining("VERIFICATION_SMTP_PASSWORD")
                .hasMessageNotContaining("pw-0123");
        assertThatThrownBy(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("mail.example.com", SmtpSecurity.NONE, "mailer", "pw")))
                .isInstanceOf(StartupException.class);
        assertThatCode(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("127.0.0.1", SmtpSecurity.NONE, null, null)))
                .doesNotThrowAnyException();
        assertThatCode(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("localhost", SmtpSecurity.NONE, " ", "")))
                .doesNotThrowAnyException();
        // TLS of either kind may log in anywhere.
        for (SmtpSecurity security : new SmtpSecurity[] {SmtpSecurity.STARTTLS, SmtpSecurity.SMTPS}) {
            assertThatCode(() -> DeliveryAutoConfiguration.checkPlainSmtp(smtp("smtp.example.com", security, "mailer", "pw")))
                    .doesNotThrowAnyException();
        }
    }
}

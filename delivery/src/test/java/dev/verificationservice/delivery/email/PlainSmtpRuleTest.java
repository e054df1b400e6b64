package dev.verificationservice.delivery.email;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code SmtpSecurity.NONE}: only to a loopback host, never with credentials; the settings themselves refuse it,
 * so an application without the starter gets the rule too.
 */
class PlainSmtpRuleTest {

    private static SmtpSettings smtp(String host, SmtpSecurity security, String username, String password) {
        return new SmtpSettings(host, 25, security, username, password, "no-reply@localhost", Duration.ofSeconds(5));
    }

    @Test
    void loopbackHostsAreLiteralsOrLocalhostAndNothingIsLookedUp() {
        for (String host : new String[] {"localhost", "LOCALHOST", " localhost ", "127.0.0.1", "127.0.0.53", "127.255.255.254",
            "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"}) {
            assertThat(SmtpSettings.isLoopbackHost(host)).as(host).isTrue();
        }
        for (String host : new String[] {"smtp.example.com", "localhost.example.com", "127.0.0.1.nip.io", "10.0.0.1",
            "128.0.0.1", "0.0.0.0", "::", "fe80::1", "2001:db8::1", "127.1", "127.0.0.256", "0127.0.0.1", "", " ", "[]",
            "localhost:25", "::ffff:10.0.0.1"}) {
            assertThat(SmtpSettings.isLoopbackHost(host)).as(host).isFalse();
        }
        assertThat(SmtpSettings.isLoopbackHost(null)).isFalse();
    }

    @Test
    void noneIsRefusedOffLoopbackAndWithCredentialsWhateverTheHost() {
        assertThatThrownBy(() -> smtp("mail.example.com", SmtpSecurity.NONE, null, null))
                .isInstanceOf(SmtpSettingsException.class).hasMessageContaining("VERIFICATION_SMTP_HOST");
        assertThatThrownBy(() -> smtp("localhost", SmtpSecurity.NONE, "mailer", null))
                .isInstanceOf(SmtpSettingsException.class).hasMessageContaining("VERIFICATION_SMTP_USERNAME");
        assertThatThrownBy(() -> smtp("127.0.0.1", SmtpSecurity.NONE, null, "pw-0123"))
                .isInstanceOf(SmtpSettingsException.class).hasMessageContaining("VERIFICATION_SMTP_PASSWORD")
                .hasMessageNotContaining("pw-0123");
        assertThatThrownBy(() -> smtp("mail.example.com", SmtpSecurity.NONE, "mailer", "pw"))
                .isInstanceOf(SmtpSettingsException.class);
        assertThatCode(() -> smtp("127.0.0.1", SmtpSecurity.NONE, null, null))
                .doesNotThrowAnyException();
        assertThatCode(() -> smtp("localhost", SmtpSecurity.NONE, " ", ""))
                .doesNotThrowAnyException();
        // TLS of either kind may log in anywhere.
        for (SmtpSecurity security : new SmtpSecurity[] {SmtpSecurity.STARTTLS, SmtpSecurity.SMTPS}) {
            assertThatCode(() -> smtp("smtp.example.com", security, "mailer", "pw"))
                    .doesNotThrowAnyException();
        }
    }
}

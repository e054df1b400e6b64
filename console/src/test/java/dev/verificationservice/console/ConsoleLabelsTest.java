package dev.verificationservice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.codes.CodeType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The console names the API's enums in words a support person reads. */
class ConsoleLabelsTest {

    private final ConsoleLabels labels = new ConsoleLabels();

    @Test
    void codeTypesActionsAndEventsReadAsWords() {
        assertThat(labels.of("EMAIL_VERIFICATION")).isEqualTo("Email verification");
        assertThat(labels.of("VERIFY_EMAIL_VERIFICATION")).isEqualTo("Wrong guesses: email verification");
        assertThat(labels.of("SEND_PASSWORD_RESET")).isEqualTo("Code requests: password reset");
        assertThat(labels.of("RESEND_PHONE_VERIFICATION")).isEqualTo("Resend cooldown: phone verification");
        assertThat(labels.of("VERIFY_TOTP")).isEqualTo("Wrong guesses: TOTP");
        assertThat(labels.of("VERIFY_RECOVERY")).isEqualTo("Wrong guesses: recovery");
        assertThat(labels.of("VERIFY_TOTP_CONSECUTIVE")).isEqualTo("Wrong guesses in a row: TOTP");
        assertThat(labels.of("VERIFY_PASSWORD_RESET_CONSECUTIVE")).isEqualTo("Wrong guesses in a row: password reset");
        assertThat(labels.of("CODE_VERIFICATION_FAILED")).isEqualTo("Code verification failed");
        assertThat(labels.of("SMS")).isEqualTo("SMS");
        assertThat(labels.of("")).isEmpty();
    }

    @Test
    void everyNameTheConsoleShowsHasWordsWithoutUnderscores() {
        for (AuditEventType type : AuditEventType.values()) {
            assertThat(labels.of(type.name())).doesNotContain("_").isNotBlank();
        }
        for (CodeType type : CodeType.values()) {
            assertThat(labels.of("VERIFY_" + type.name())).doesNotContain("_").startsWith("Wrong guesses: ");
        }
        for (String action : List.of("VERIFY_TOTP", "VERIFY_TOTP_CONSECUTIVE", "VERIFY_RECOVERY_CONSECUTIVE",
                "VERIFY_EMAIL_VERIFICATION_CONSECUTIVE", "SEND_LOGIN")) {
            assertThat(labels.of(action)).doesNotContain("_");
        }
    }
}

package dev.verificationservice.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.codes.CodeType;
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
    }
}

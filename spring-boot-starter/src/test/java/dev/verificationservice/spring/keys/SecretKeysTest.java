package dev.verificationservice.spring.keys;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.spring.StartupException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A key file the delivery module cannot use is a refused start, with the module's own advice. */
class SecretKeysTest {

    @TempDir
    Path dir;

    @Test
    void anEmptyKeyFileIsARefusedStartThatSaysWhatToDo() throws Exception {
        Path file = Files.writeString(dir.resolve(SecretKeys.SECRET_KEY_FILE), "\n");

        assertThatThrownBy(() -> SecretKeys.loadOrGenerate(file, new SecureRandom(), "HMAC key", false))
                .isInstanceOf(StartupException.class).hasMessageContaining("is empty")
                .extracting(e -> ((StartupException) e).action(), InstanceOfAssertFactories.STRING)
                .contains("Delete it");
    }
}

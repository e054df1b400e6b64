package dev.verificationservice.spring.security.loginapp;

import java.io.IOException;
import java.nio.file.Files;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Spring Security's passkeys on the embedded store (a SQLite file), with its default RP ID and origin. */
@SpringBootTest(classes = {LoginHostApplication.class, PasskeyLoginContract.MovableClock.class})
@AutoConfigureMockMvc
class SqlitePasskeyLoginTest extends PasskeyLoginContract {

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-passkey-host")::toString);
    }
}

package dev.verificationservice.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The API on the embedded store: a real SQLite file in a fresh directory. */
class EmbeddedApiTest extends AbstractApiTest {

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        Path directory = Files.createTempDirectory("verification-api-test");
        registry.add("verification.data-dir", directory::toString);
    }
}

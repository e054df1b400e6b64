package dev.verificationservice.spring.hostapp;

import dev.verificationservice.testsupport.docs.ReadmeSnippets;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's starter example is {@link EmailConfirmation}'s file, exactly: it compiles, and
 * {@code EmbeddedHostApplicationTest}, {@code DynamoDbHostApplicationTest} and {@code OwnCodeSenderTest} run it.
 */
class ReadmeSnippetTest {

    private static final Path SOURCE = Path.of("src/test/java/dev/verificationservice/spring/hostapp/EmailConfirmation.java");
    private static final Path README = Path.of("../README.md");

    @Test
    void theReadmeShowsExactlyTheCompiledSnippet() throws IOException {
        ReadmeSnippets.assertReadmeShows(README, SOURCE);
    }
}

package dev.verificationservice.spring.hostapp;

import dev.verificationservice.store.contract.ReadmeSnippets;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's starter snippet is {@link HostApplication}'s text between its markers, exactly: the snippet
 * compiles, and {@code EmbeddedHostApplicationTest} and {@code DynamoDbHostApplicationTest} run it.
 */
class ReadmeSnippetTest {

    private static final Path SOURCE = Path.of("src/test/java/dev/verificationservice/spring/hostapp/HostApplication.java");
    private static final Path README = Path.of("../README.md");

    @Test
    void theReadmeShowsExactlyTheCompiledSnippet() throws IOException {
        ReadmeSnippets.assertReadmeShows(README, SOURCE, HostApplication.BEGIN, HostApplication.END);
    }
}

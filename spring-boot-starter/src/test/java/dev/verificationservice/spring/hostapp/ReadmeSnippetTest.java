package dev.verificationservice.spring.hostapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.store.contract.ReadmeSnippets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's starter snippet is {@link HostApplication}'s text between its markers, exactly: the snippet
 * compiles, and {@code EmbeddedHostApplicationTest} and {@code DynamoDbHostApplicationTest} run it.
 */
class ReadmeSnippetTest {

    private static final Path SOURCE = Path.of("src/test/java/dev/verificationservice/spring/hostapp/HostApplication.java");
    private static final Path README = Path.of("../README.md");

    static String snippet() throws IOException {
        return ReadmeSnippets.javaBlock(SOURCE, HostApplication.BEGIN, HostApplication.END);
    }

    @Test
    void theReadmeShowsExactlyTheCompiledSnippet() throws IOException {
        String snippet = snippet();
        assertThat(snippet.lines().count()).isGreaterThan(10);
        assertThat(Files.readString(README))
                .as("README.md must hold the snippet of %s, exactly:%n%s", SOURCE, snippet)
                .contains(snippet);
    }
}

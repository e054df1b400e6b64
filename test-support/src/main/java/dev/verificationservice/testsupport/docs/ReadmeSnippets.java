package dev.verificationservice.testsupport.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A README example kept as a test source that compiles and runs: the whole file, without its {@code package}
 * line, is the fenced Java block the README must hold exactly, so a reader can paste it as a file of their own.
 * (The documentation tests compile every Java block of the README as pasted, too.) Used by every module whose
 * README example its tests run (the client, the starter).
 */
public final class ReadmeSnippets {

    private ReadmeSnippets() {
    }

    /** The file as the README shows it: without its package line and the blank line after it. */
    public static String javaBlock(Path source) throws IOException {
        List<String> lines = Files.readAllLines(source);
        int start = 0;
        if (!lines.isEmpty() && lines.get(0).startsWith("package ")) {
            start = lines.size() > 1 && lines.get(1).isBlank() ? 2 : 1;
        }
        return "```java\n" + lines.subList(start, lines.size()).stream().collect(Collectors.joining("\n")) + "\n```\n";
    }

    /**
     * Fails unless the README holds the whole of {@code source} (its package line aside) exactly, as one Java
     * block of more than ten lines: a README example that cannot rot, since the source compiles and runs.
     */
    public static void assertReadmeShows(Path readme, Path source) throws IOException {
        String snippet = javaBlock(source);
        assertThat(snippet.lines().count()).as("lines of the example %s", source).isGreaterThan(10);
        assertThat(Files.readString(readme))
                .as("%s must hold the whole of %s (without its package line), exactly:%n%s", readme, source, snippet)
                .contains(snippet);
    }
}

package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A README snippet kept as compiled code: the lines of a test source between two marker lines, without their
 * common indentation, as the fenced Java block the README must hold exactly. Used by every module whose
 * README example is compiled and run by its tests (the client, the starter).
 */
public final class ReadmeSnippets {

    private ReadmeSnippets() {
    }

    public static String javaBlock(Path source, String beginMarker, String endMarker) throws IOException {
        List<String> lines = Files.readAllLines(source);
        List<String> body = lines.subList(indexOf(lines, beginMarker, source) + 1, indexOf(lines, endMarker, source));
        int indent = body.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        return "```java\n" + body.stream().map(line -> line.isBlank() ? "" : line.substring(indent))
                .collect(Collectors.joining("\n")) + "\n```\n";
    }

    /**
     * Fails unless the README holds the snippet of {@code source} exactly, and the snippet is a real one (more
     * than ten lines): a README example that cannot rot, since the source it is cut from compiles and runs.
     */
    public static void assertReadmeShows(Path readme, Path source, String beginMarker, String endMarker)
            throws IOException {
        String snippet = javaBlock(source, beginMarker, endMarker);
        assertThat(snippet.lines().count()).as("lines of the snippet in %s", source).isGreaterThan(10);
        assertThat(Files.readString(readme))
                .as("%s must hold the snippet of %s, exactly:%n%s", readme, source, snippet)
                .contains(snippet);
    }

    private static int indexOf(List<String> lines, String marker, Path source) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker)) {
                return i;
            }
        }
        throw new AssertionError("marker not found in " + source + ": " + marker);
    }
}

package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/architecture.md names real code: every {@code `Class#method`} it writes (its walks name one at each step) is
 * declared in a source file of that simple name somewhere in the repository, so a class or method renamed without
 * the page fails the build. Its links are resolved by {@link MarkdownLinksTest}, which reads every page of docs/.
 */
class ArchitectureWalksTest {

    private static final Path PAGE = Markdown.ROOT.resolve("docs/architecture.md");
    private static final Pattern REFERENCE = Pattern.compile("`([A-Z][A-Za-z0-9]*)#([a-z][A-Za-z0-9]*)`");

    @Test
    void everyClassAndMethodThePageNamesIsDeclared() throws IOException {
        List<String> lines = Files.readAllLines(PAGE);

        assertThat(references(lines)).as("Class#method references of docs/architecture.md").hasSizeGreaterThan(25);
        assertThat(unresolved(Markdown.ROOT, lines)).as("docs/architecture.md names code that is not there").isEmpty();
    }

    @Test
    void theThreeWalksAreThere() throws IOException {
        String page = Files.readString(PAGE);

        assertThat(page).contains("`CodeService#verify`", "`CountedFactor#begin`", "`TotpService#verify`",
                "`RelayRunner#poll`", "`WebhookRelay#fanOut`");
    }

    @Test
    void aWrongClassOrMethodIsReported(@TempDir Path root) throws IOException {
        Path sources = Files.createDirectories(root.resolve("core/src/main/java/dev/example"));
        Files.writeString(sources.resolve("CodeService.java"), """
                package dev.example;

                public final class CodeService {

                    /** Calls {@code verify(request)} below: a call is no declaration. */
                    public VerificationResult check(Request request) {
                        return verify(request);
                    }

                    private <T> Optional<List<T>> evaluate(Request request,
                                                          Operation operation) {
                        return Optional.empty();
                    }
                }
                """);
        Files.createDirectories(root.resolve("core/target/classes/dev/example"));
        Files.writeString(root.resolve("core/target/classes/dev/example/Gone.java"), "class Gone { void run() {} }\n");

        assertThat(unresolved(root, List.of("1. `CodeService#check` then `CodeService#evaluate`;",
                "2. `CodeService#verify`, `CodeServce#check` and `Gone#run`.")))
                .containsExactly("line 2: CodeService#verify: no method verify declared in CodeService.java",
                        "line 2: CodeServce#check: no file CodeServce.java in the repository",
                        "line 2: Gone#run: no file Gone.java in the repository");
    }

    /** What of {@code lines} names no class of the repository under {@code root}, or no method of it. */
    static List<String> unresolved(Path root, List<String> lines) {
        Map<String, List<Path>> sources = sources(root);
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher reference = REFERENCE.matcher(lines.get(i));
            while (reference.find()) {
                String type = reference.group(1);
                String method = reference.group(2);
                String where = "line " + (i + 1) + ": " + type + "#" + method + ": ";
                List<Path> files = sources.getOrDefault(type + ".java", List.of());
                if (files.isEmpty()) {
                    problems.add(where + "no file " + type + ".java in the repository");
                } else if (files.stream().noneMatch(file -> declares(Markdown.text(file), method))) {
                    problems.add(where + "no method " + method + " declared in " + type + ".java");
                }
            }
        }
        return problems;
    }

    private static List<String> references(List<String> lines) {
        List<String> found = new ArrayList<>();
        for (String line : lines) {
            Matcher reference = REFERENCE.matcher(line);
            while (reference.find()) {
                found.add(reference.group());
            }
        }
        return found;
    }

    /**
     * A method declaration: modifiers, type parameters and a return type before the name, then its parameters; a
     * call ({@code return verify(...)}, {@code x.verify(...)}, {@code new Verify(...)}) is none.
     */
    static boolean declares(String source, String method) {
        Pattern declaration = Pattern.compile("(?m)^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*"
                + "(?:(?:public|protected|private|static|final|synchronized|default|abstract|native)\\s+)*"
                + "(?:<[^;{}()=]*>\\s*)?(?!return\\b|new\\b|throw\\b|else\\b|case\\b)[A-Za-z_][\\w.]*"
                + "(?:<[^;{}()=]*>)?(?:\\[])*\\s+" + Pattern.quote(method) + "\\s*\\(");
        return declaration.matcher(source).find();
    }

    /** Every Java file the repository's authors wrote, by its file name. */
    private static Map<String, List<Path>> sources(Path root) {
        Map<String, List<Path>> byName = new HashMap<>();
        for (Path file : Markdown.writtenFiles(root, name -> name.endsWith(".java"))) {
            byName.computeIfAbsent(file.getFileName().toString(), name -> new ArrayList<>()).add(file);
        }
        return byName;
    }

}

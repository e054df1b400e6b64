package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/conformance.md's tables hold: every row has an id of its standard and a verdict; a row that says "met"
 * names the tests that prove it, each a test method of that module's sources ({@code `core: TotpTest#step…`}); a
 * setting it names is one of docs/configuration.md; a "not met" row says what to do.
 */
class ConformanceTableTest {

    private static final Pattern ID = Pattern.compile("(§\\d+(\\.\\d+)+|V\\d+(\\.\\d+)+)( \\(id not verified\\))?");
    private static final Pattern VERDICT = Pattern.compile("met|not met|met with a setting: `([A-Z][A-Z0-9_]+)=[^`]+`");
    private static final Pattern TEST = Pattern.compile("`([a-z][a-z0-9-]*(?:/[a-z0-9-]+)*): ([A-Z][A-Za-z0-9]*)#([a-z][A-Za-z0-9]*)`");
    private static final Pattern TEST_ANNOTATION = Pattern.compile(
            "@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Property|Example)\\b");

    /** A row of a table whose header has the columns Id, Verdict, Tests and Note. */
    record Row(int line, String id, String verdict, String tests, String note) {
    }

    @Test
    void everyRowHasAVerdictAndEveryTestItNamesExists() {
        List<String> lines = readLines(Markdown.ROOT.resolve("docs/conformance.md"));

        assertThat(rows(lines)).as("the rows of docs/conformance.md").hasSizeGreaterThan(20);
        assertThat(problems(Markdown.ROOT, lines)).as("docs/conformance.md").isEmpty();
    }

    @Test
    void aRowWithoutAVerdictOrIdIsReported(@TempDir Path root) throws IOException {
        assertThat(problemsOfTable(root,
                "| §3.1.4.2 | \"…\" | | `core: StepTest#stepsLastThirtySeconds` | |",
                "| §3.1.4.2 | \"…\" | mostly | `core: StepTest#stepsLastThirtySeconds` | |",
                "| 3.1.4.2 | \"…\" | met | `core: StepTest#stepsLastThirtySeconds` | |"))
                .containsExactly("line 3: no verdict (met, met with a setting: `NAME=value`, or not met) in ''",
                        "line 4: no verdict (met, met with a setting: `NAME=value`, or not met) in 'mostly'",
                        "line 5: no id of the standard in '3.1.4.2'");
    }

    @Test
    void aTestThatIsNotInItsModuleIsReported(@TempDir Path root) throws IOException {
        assertThat(problemsOfTable(root,
                "| V6.5.1 | \"…\" | met | `core: StepTest#stepsLastThirtySeconds`, `core: StepTest#aHelper` | |",
                "| V6.5.1 | \"…\" | met | `server: StepTest#stepsLastThirtySeconds` | |",
                "| V6.5.1 | \"…\" | met | `core: GoneTest#anything`, core: StepTest | |",
                "| V6.5.1 | \"…\" | met | | |"))
                .containsExactly("line 3: core: StepTest#aHelper is no test method of the module's sources",
                        "line 4: server: StepTest#stepsLastThirtySeconds is no test method of the module's sources",
                        "line 5: core: GoneTest#anything is no test method of the module's sources",
                        "line 5: the tests cell holds more than test names: ', core: StepTest'",
                        "line 6: 'met' names no test");
    }

    @Test
    void aSettingMustBeDocumentedAndANotMetRowMustSayWhatToDo(@TempDir Path root) throws IOException {
        assertThat(problemsOfTable(root,
                "| V6.5.5 | \"…\" | met with a setting: `VERIFICATION_CODE_TTL=PT10M` | `core: StepTest#stepsLastThirtySeconds` | |",
                "| V6.5.5 | \"…\" | met with a setting: `VERIFICATION_CODE_LIFE=PT10M` | `core: StepTest#stepsLastThirtySeconds` | |",
                "| V6.5.2 | \"…\" | not met | | Keep the key elsewhere. |",
                "| V6.5.2 | \"…\" | not met | | |"))
                .containsExactly("line 4: VERIFICATION_CODE_LIFE is no setting of docs/configuration.md",
                        "line 6: 'not met' says nothing of why or what to do");
    }

    /** What is wrong with the tables in {@code lines}, each as "line N: …"; empty when nothing is. */
    static List<String> problems(Path root, List<String> lines) {
        List<String> problems = new ArrayList<>();
        String configuration = String.join("\n", readLines(root.resolve("docs/configuration.md")));
        for (Row row : rows(lines)) {
            String where = "line " + row.line() + ": ";
            if (!ID.matcher(row.id()).matches()) {
                problems.add(where + "no id of the standard in '" + row.id() + "'");
            }
            Matcher verdict = VERDICT.matcher(row.verdict());
            if (!verdict.matches()) {
                problems.add(where + "no verdict (met, met with a setting: `NAME=value`, or not met) in '"
                        + row.verdict() + "'");
            } else if (verdict.group(1) != null && !configuration.contains("| `" + verdict.group(1) + "` |")) {
                problems.add(where + verdict.group(1) + " is no setting of docs/configuration.md");
            }
            int named = 0;
            Matcher test = TEST.matcher(row.tests());
            while (test.find()) {
                named++;
                if (!isTestMethod(root.resolve(test.group(1)), test.group(2), test.group(3))) {
                    problems.add(where + test.group().replace("`", "") + " is no test method of the module's sources");
                }
            }
            String rest = TEST.matcher(row.tests()).replaceAll("");
            if (!rest.matches("[\\s,]*")) {
                problems.add(where + "the tests cell holds more than test names: '" + rest.strip() + "'");
            }
            if (verdict.matches() && row.verdict().startsWith("met") && named == 0) {
                problems.add(where + "'" + row.verdict() + "' names no test");
            }
            if (row.verdict().equals("not met") && row.note().isBlank()) {
                problems.add(where + "'not met' says nothing of why or what to do");
            }
        }
        return problems;
    }

    /** The rows of every table whose header names the columns Id, Verdict, Tests and Note. */
    static List<Row> rows(List<String> lines) {
        List<Row> rows = new ArrayList<>();
        List<String> header = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (!line.startsWith("|")) {
                header = null;
                continue;
            }
            List<String> cells = cells(line);
            if (header == null) {
                header = cells;
            } else if (!line.matches("\\|[\\s|:-]*") && header.containsAll(List.of("Id", "Verdict", "Tests", "Note"))) {
                rows.add(new Row(i + 1, cell(cells, header.indexOf("Id")), cell(cells, header.indexOf("Verdict")),
                        cell(cells, header.indexOf("Tests")), cell(cells, header.indexOf("Note"))));
            }
        }
        return rows;
    }

    private static List<String> cells(String line) {
        String inner = line.substring(1, line.endsWith("|") && line.length() > 1 ? line.length() - 1 : line.length());
        return Stream.of(inner.split("\\|", -1)).map(String::strip).toList();
    }

    private static String cell(List<String> cells, int index) {
        return index < cells.size() ? cells.get(index) : "";
    }

    /** Whether a file {@code type}.java under the module's sources declares {@code method} as a test. */
    private static boolean isTestMethod(Path module, String type, String method) {
        Path sources = module.resolve("src");
        if (!Files.isDirectory(sources)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(file -> file.getFileName().toString().equals(type + ".java"))
                    .anyMatch(file -> declaresTest(readLines(file), method));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The method's line, and the annotations right above it, carry a test annotation. */
    private static boolean declaresTest(List<String> lines, String method) {
        Pattern declaration = Pattern.compile("\\bvoid\\s+" + Pattern.quote(method) + "\\s*\\(");
        for (int i = 0; i < lines.size(); i++) {
            if (declaration.matcher(lines.get(i)).find()) {
                StringBuilder above = new StringBuilder(lines.get(i));
                for (int j = i - 1; j >= 0 && isAnnotationLine(lines.get(j)); j--) {
                    above.append('\n').append(lines.get(j));
                }
                if (TEST_ANNOTATION.matcher(above).find()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A line of the annotations above a method: not blank, no comment, no end of an earlier member. */
    private static boolean isAnnotationLine(String line) {
        String text = line.strip();
        return !text.isEmpty() && !text.startsWith("*") && !text.startsWith("/") && !text.endsWith(";")
                && !text.equals("}") && !text.endsWith("{");
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The problems of a table of these rows (the first on line 3), in a repository of {@link #repository}. */
    private static List<String> problemsOfTable(Path root, String... rows) throws IOException {
        repository(root);
        List<String> lines = new ArrayList<>(List.of("| Id | Requirement | Verdict | Tests | Note |", "|---|---|---|---|---|"));
        lines.addAll(List.of(rows));
        return problems(root, lines);
    }

    /** A repository with one module, core, whose one test class has a test and a helper, and one setting. */
    private static void repository(Path root) throws IOException {
        Path tests = Files.createDirectories(root.resolve("core/src/test/java/dev/example"));
        Files.writeString(tests.resolve("StepTest.java"), """
                package dev.example;

                class StepTest {

                    @Test
                    @DisplayName("steps")
                    void stepsLastThirtySeconds() {
                    }

                    void aHelper() {
                    }
                }
                """);
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/configuration.md"), "| `VERIFICATION_CODE_TTL` | `PT15M` | code lifetime |\n");
    }
}

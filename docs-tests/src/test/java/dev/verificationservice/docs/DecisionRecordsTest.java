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
 * docs/decisions/ holds one short record per decision, as its README says: each file {@code NNNN-short-title.md},
 * numbered from 0001 without a gap; a title {@code # NNNN. Title}; the sections Context, Decision and Consequences
 * in that order and no other; at most {@value #MAX_LINES} lines; no issue number, no section sign and no test
 * name (a record says why, the tests say how it is shown). The README lists every record once, in order, by its
 * title.
 */
class DecisionRecordsTest {

    static final int MAX_LINES = 40;
    private static final Path DECISIONS = Markdown.ROOT.resolve("docs/decisions");
    private static final Pattern FILE_NAME = Pattern.compile("(\\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\\.md");
    private static final Pattern TITLE = Pattern.compile("# (\\d{4})\\. (.+)");
    private static final List<String> SECTIONS = List.of("## Context", "## Decision", "## Consequences");
    private static final Pattern ISSUE = Pattern.compile("(?i)\\bissues? #?\\d+");
    /** A class of tests named in prose: {@code CodeContract}, {@code GroupCommitWriterTest}, {@code NewProjectIT}. */
    private static final Pattern TEST_NAME = Pattern.compile("\\b[A-Z][a-z][A-Za-z0-9]*(?:Test|IT|Contract)\\b");
    private static final Pattern INDEX_LINE = Pattern.compile("- \\[(\\d{4})\\. ([^\\]]+)\\]\\((\\d{4}-[^)]+\\.md)\\): .+");

    @Test
    void everyRecordHasItsNumberTitleSectionsAndLength() {
        assertThat(problems(DECISIONS)).as("decision records out of shape").isEmpty();
        assertThat(records(DECISIONS)).as("decision records").hasSizeGreaterThanOrEqualTo(30);
    }

    @Test
    void aRecordOutOfShapeIsFound(@TempDir Path directory) throws IOException {
        Files.writeString(directory.resolve("0001-good.md"), record(1, "Good", "## Context", "## Decision",
                "## Consequences"));
        Files.writeString(directory.resolve("0003-gap.md"), record(3, "A gap before it", "## Context", "## Decision",
                "## Consequences"));
        Files.writeString(directory.resolve("0004-sections.md"), record(4, "Sections", "## Context",
                "## Consequences", "## Decision", "As issue 29 asks and StoreContractTest shows, see §5."));
        Files.writeString(directory.resolve("0005-long.md"), record(5, "Long", "## Context", "## Decision",
                "## Consequences", "line\n".repeat(MAX_LINES)));
        Files.writeString(directory.resolve("0006-title.md"), record(7, "Another number", "## Context",
                "## Decision", "## Consequences"));
        Files.writeString(directory.resolve("README.md"), "# Decisions\n\n- [0001. Good](0001-good.md): fine.\n"
                + "- [0001. Good](0001-good.md): twice.\n- [0003. Another title](0003-gap.md): renamed.\n");

        assertThat(problems(directory)).containsExactlyInAnyOrder(
                "0003-gap.md: numbered 0003 where 0002 comes next",
                "0004-sections.md: sections [## Context, ## Consequences, ## Decision], not [## Context, ## Decision,"
                        + " ## Consequences]",
                "0004-sections.md: names an issue: issue 29",
                "0004-sections.md: names a test: StoreContractTest",
                "0004-sections.md: cites a section sign",
                "0005-long.md: " + (MAX_LINES + 9) + " lines, more than " + MAX_LINES,
                "0006-title.md: its title says 0007",
                "README.md: lists 0001. Good 2 times",
                "README.md: lists 0003 as \"Another title\", not \"A gap before it\"",
                "README.md: does not list 0004. Sections",
                "README.md: does not list 0005. Long",
                "README.md: does not list 0007. Another number");
    }

    private static String record(int number, String title, String... lines) {
        StringBuilder text = new StringBuilder(String.format("# %04d. %s%n", number, title));
        for (String line : lines) {
            text.append('\n').append(line).append('\n');
        }
        return text.toString();
    }

    /** The records of the folder, in the order of their names. */
    private static List<Path> records(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> !file.getFileName().toString().equals("README.md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> problems(Path directory) {
        List<String> problems = new ArrayList<>();
        List<String> titles = new ArrayList<>();
        int expected = 1;
        for (Path file : records(directory)) {
            String name = file.getFileName().toString();
            Matcher fileName = FILE_NAME.matcher(name);
            if (!fileName.matches()) {
                problems.add(name + ": not named NNNN-short-title.md");
                continue;
            }
            int number = Integer.parseInt(fileName.group(1));
            if (number != expected) {
                problems.add(name + ": numbered " + fileName.group(1) + " where " + String.format("%04d", expected)
                        + " comes next");
            }
            expected = number + 1;
            List<String> lines = read(file);
            Matcher title = TITLE.matcher(lines.isEmpty() ? "" : lines.get(0));
            if (!title.matches()) {
                problems.add(name + ": its first line is not # " + fileName.group(1) + ". <title>");
            } else if (!title.group(1).equals(fileName.group(1))) {
                problems.add(name + ": its title says " + title.group(1));
            }
            titles.add(title.matches() ? title.group(1) + ". " + title.group(2) : name);
            List<String> sections = lines.stream().filter(line -> line.startsWith("## ")).toList();
            if (!sections.equals(SECTIONS)) {
                problems.add(name + ": sections " + sections + ", not " + SECTIONS);
            }
            if (lines.size() > MAX_LINES) {
                problems.add(name + ": " + lines.size() + " lines, more than " + MAX_LINES);
            }
            String text = String.join("\n", lines);
            Matcher issue = ISSUE.matcher(text);
            if (issue.find()) {
                problems.add(name + ": names an issue: " + issue.group());
            }
            Matcher test = TEST_NAME.matcher(text);
            if (test.find()) {
                problems.add(name + ": names a test: " + test.group());
            }
            if (text.contains("§")) {
                problems.add(name + ": cites a section sign");
            }
        }
        problems.addAll(indexProblems(directory, titles));
        return problems;
    }

    /** The README's list: one line {@code - [NNNN. Title](NNNN-short-title.md): what it decides} per record. */
    private static List<String> indexProblems(Path directory, List<String> titles) {
        List<String> problems = new ArrayList<>();
        List<String> listed = new ArrayList<>();
        for (String line : read(directory.resolve("README.md"))) {
            Matcher entry = INDEX_LINE.matcher(line);
            if (entry.matches()) {
                listed.add(entry.group(1) + ". " + entry.group(2));
                if (!Files.exists(directory.resolve(entry.group(3)))
                        || !entry.group(3).startsWith(entry.group(1) + "-")) {
                    problems.add("README.md: links " + entry.group(1) + " to " + entry.group(3));
                }
            }
        }
        for (String title : titles) {
            String number = title.substring(0, 4);
            long times = listed.stream().filter(title::equals).count();
            List<String> sameNumber = listed.stream().filter(entry -> entry.startsWith(number + ". ")).toList();
            if (times > 1) {
                problems.add("README.md: lists " + title + " " + times + " times");
            } else if (times == 0 && !sameNumber.isEmpty()) {
                problems.add("README.md: lists " + number + " as \"" + sameNumber.get(0).substring(6) + "\", not \""
                        + title.substring(6) + "\"");
            } else if (times == 0) {
                problems.add("README.md: does not list " + title);
            }
        }
        if (!listed.equals(listed.stream().sorted().toList())) {
            problems.add("README.md: the records are not listed in the order of their numbers");
        }
        return problems;
    }

    private static List<String> read(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

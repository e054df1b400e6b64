package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of README.md, docs/ (its subfolders included) and the examples' READMEs reaches a file of
 * the repository, and every {@code #anchor} a heading of its target; no document points outside the repository's
 * tree. A page of docs/ that the code cites ({@code docs/performance.md}, in a comment, a test or a POM) exists too,
 * with the heading its anchor names. (Web links are not fetched: the machine that runs the tests may have no
 * internet.)
 */
class MarkdownLinksTest {

    /** {@code docs/<page>.md}, also after {@code ../} and with an {@code #anchor}: a page as code and POMs cite it. */
    private static final Pattern CITED_PAGE = Pattern.compile("(?<![\\w./-])(?:\\.\\./)*(docs/[\\w./-]*?\\.md)(?:#([\\w-]+))?");
    /** The kinds of file that cite pages: sources, POMs, settings, scripts. */
    private static final Pattern CITING_FILE = Pattern.compile(".*\\.(java|xml|properties|yaml|yml|sh|json)|run|Dockerfile");

    @Test
    void everyLinkAndAnchorResolves() {
        List<Markdown> documents = Markdown.all();
        Map<Path, Markdown> byFile = documents.stream()
                .collect(Collectors.toMap(markdown -> markdown.file().normalize(), Function.identity()));
        List<String> broken = new ArrayList<>();
        for (Markdown document : documents) {
            for (Markdown.Link link : document.links()) {
                String target = link.target();
                if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto:: a web address, not a file of the repository
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path file = path.isEmpty() ? document.file() : document.file().getParent().resolve(path).normalize();
                if (!file.startsWith(Markdown.ROOT)) {
                    broken.add(link.where() + ": " + target + " points outside the repository");
                } else if (!Files.exists(file)) {
                    broken.add(link.where() + ": " + target + " (no such file)");
                } else if (anchor != null) {
                    Markdown linked = byFile.get(file);
                    if (linked == null || !linked.anchors().contains(anchor)) {
                        broken.add(link.where() + ": " + target + " (no heading makes #" + anchor + ")");
                    }
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
        assertThat(documents).extracting(markdown -> Markdown.ROOT.relativize(markdown.file()).toString())
                .contains("README.md", "docs/architecture.md", "examples/spring-security-login/README.md");
    }

    @Test
    void aLinkWhoseTextWrapsOntoTheNextLineIsFoundOnItsFirstLine(@org.junit.jupiter.api.io.TempDir Path directory)
            throws java.io.IOException {
        Path file = Files.writeString(directory.resolve("wrapped.md"),
                "# Title\n\nSee the [single\ntable](other.md#items) and `[not](a-link.md)`.\n\n```\n[nor](this.md)\n```\n");

        assertThat(Markdown.read(file).links()).extracting(Markdown.Link::target, Markdown.Link::line)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("other.md#items", 3));
    }

    @Test
    void aReferenceDefinitionAndAnHtmlLinkAreLinksToo(@TempDir Path directory) throws IOException {
        Path file = Files.writeString(directory.resolve("references.md"),
                "# Title\n\nSee [the record][adr] and <a href=\"third.md#x\">this</a>.\n\n[adr]: decisions/0001-a.md#context\n");

        assertThat(Markdown.read(file).links()).extracting(Markdown.Link::target, Markdown.Link::line)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("decisions/0001-a.md#context", 5),
                        org.assertj.core.groups.Tuple.tuple("third.md#x", 3));
    }

    @Test
    void everyPageTheCodeCitesExistsWithTheHeadingItNames() {
        assertThat(brokenCitations(Markdown.ROOT)).as("pages of docs/ the code cites that do not exist").isEmpty();
    }

    @Test
    void aCitationOfAMissingPageOrHeadingIsFound(@TempDir Path root) throws IOException {
        String docs = "docs" + "/"; // spelled apart, so that this file cites no page itself
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve(docs + "real.md"), "# Real heading\n");
        Path source = root.resolve("core/src/main/java/Example.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "/** See " + docs + "real.md#real-heading, ../" + docs + "real.md, " + docs
                + "real.md#gone and the design notes, " + docs + "design.md#layers. */\nclass Example {}\n");
        Path built = root.resolve("core/target/classes/Example.java");
        Files.createDirectories(built.getParent());
        Files.writeString(built, "// " + docs + "built.md\n");

        assertThat(brokenCitations(root)).containsExactly(
                "core/src/main/java/Example.java:1: " + docs + "real.md#gone (no heading makes #gone)",
                "core/src/main/java/Example.java:1: " + docs + "design.md#layers (no such file)");
    }

    /** Every citation of a page of docs/ in the repository's written files that reaches no page, or no heading. */
    static List<String> brokenCitations(Path root) {
        List<Path> citing = Markdown.writtenFiles(root, name -> CITING_FILE.matcher(name).matches());
        List<String> broken = new ArrayList<>();
        citing.stream().sorted().forEach(file -> broken.addAll(brokenCitations(root, file)));
        return broken;
    }

    private static List<String> brokenCitations(Path root, Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (MalformedInputException notText) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> broken = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher cited = CITED_PAGE.matcher(lines.get(i));
            while (cited.find()) {
                Path page = root.resolve(cited.group(1)).normalize();
                String where = root.relativize(file) + ":" + (i + 1) + ": " + cited.group(1)
                        + (cited.group(2) == null ? "" : "#" + cited.group(2));
                if (!Files.isRegularFile(page)) {
                    broken.add(where + " (no such file)");
                } else if (cited.group(2) != null && !Markdown.read(page).anchors().contains(cited.group(2))) {
                    broken.add(where + " (no heading makes #" + cited.group(2) + ")");
                }
            }
        }
        return broken;
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertThat(Markdown.anchorOf("Deploying on DynamoDB")).isEqualTo("deploying-on-dynamodb");
        assertThat(Markdown.anchorOf("2. Embed it with the Spring Boot starter"))
                .isEqualTo("2-embed-it-with-the-spring-boot-starter");
        assertThat(Markdown.anchorOf("`GET /dev/outbox`: codes, not email")).isEqualTo("get-devoutbox-codes-not-email");
    }
}

package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, docs/ and the examples' READMEs reaches a file of the repository, and every
 * {@code #anchor} a heading of its target; no document points outside the repository's tree. (Web links are not
 * fetched: the machine that runs the tests may have no internet.)
 */
class MarkdownLinksTest {

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
                .contains("README.md", "examples/spring-security-login/README.md");
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
    void anchorsAreMadeAsGitHubMakesThem() {
        assertThat(Markdown.anchorOf("Deploying on DynamoDB")).isEqualTo("deploying-on-dynamodb");
        assertThat(Markdown.anchorOf("2. Embed it with the Spring Boot starter"))
                .isEqualTo("2-embed-it-with-the-spring-boot-starter");
        assertThat(Markdown.anchorOf("`GET /dev/outbox`: codes, not email")).isEqualTo("get-devoutbox-codes-not-email");
    }
}

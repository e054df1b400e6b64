package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every {@code java} block of README.md and docs/ compiles exactly as pasted: a whole file with its imports,
 * against the project's jars, for Java 17. A block marked {@code <!-- not run here: reason -->} is skipped, and the
 * reason printed.
 */
class MarkdownJavaTest {

    @Test
    void everyJavaBlockCompilesAsPasted() {
        List<String> errors = new ArrayList<>();
        int compiled = 0;
        for (Markdown document : Markdown.all()) {
            for (Markdown.Block block : document.blocks("java")) {
                if (block.notRunReason().isPresent()) {
                    System.out.println("[markdown] not compiled: " + block.where() + ": " + block.notRunReason().get());
                    continue;
                }
                if (JavaBlocks.compile(block) instanceof JavaBlocks.Compiled.Errors failed) {
                    errors.addAll(failed.messages());
                }
                compiled++;
            }
        }
        assertThat(errors).as("Java blocks that do not compile as pasted").isEmpty();
        assertThat(compiled).as("Java blocks compiled").isGreaterThanOrEqualTo(2);
    }

    @Test
    void aBlockThatIsNotAWholeFileFails() {
        Markdown.Block fragment = new Markdown.Block(Markdown.ROOT.resolve("README.md"), 1, "java",
                "VerificationClient client = VerificationClient.builder().build();\n", java.util.Optional.empty(),
                java.util.Optional.empty());
        Markdown.Block missingImport = new Markdown.Block(Markdown.ROOT.resolve("README.md"), 1, "java",
                "public class Example { VerificationClient client; }\n", java.util.Optional.empty(),
                java.util.Optional.empty());

        assertThat(JavaBlocks.compile(fragment)).isInstanceOf(JavaBlocks.Compiled.Errors.class);
        assertThat(JavaBlocks.compile(missingImport)).isInstanceOfSatisfying(JavaBlocks.Compiled.Errors.class,
                errors -> assertThat(errors.messages()).anySatisfy(message ->
                        assertThat(message).contains("README.md:2").contains("VerificationClient")));
    }
}

package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.VerificationServerApplication;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Every {@code sh} block of README.md and docs/ runs, twice in a row, against the service started as {@code ./run}
 * starts it (the embedded store in a fresh {@code data/} directory, which makes its own keys, and the development
 * outbox; a free port instead of 8080, substituted into the block), and prints what its {@code output} block
 * says. A block marked {@code <!-- not run here: reason -->} is skipped with its reason printed.
 */
class MarkdownShellTest {

    @TempDir
    static Path checkout;

    private static ConfigurableApplicationContext server;
    private static URI uri;

    @BeforeAll
    static void startTheServiceAsRunDoes() {
        server = new SpringApplicationBuilder(VerificationServerApplication.class).run("--server.port=0",
                "--server.address=127.0.0.1", "--verification.data-dir=" + checkout.resolve("data"),
                "--verification.admin-api-keys=" + ShellBlocks.ADMIN_KEY);
        // A reader pastes at the repository's root, where the events tour reads docs/webhooks.md.
        try {
            Files.createSymbolicLink(checkout.resolve("docs"), Markdown.ROOT.resolve("docs"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        uri = URI.create("http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyShellBlockRunsTwiceAndPrintsWhatTheTextSays() throws Exception {
        assertThat(checkout.resolve("data/api-key")).as("the key the first start makes").exists();
        List<String> failures = new ArrayList<>();
        int ran = 0;
        for (Markdown document : Markdown.all()) {
            for (Markdown.Block block : document.blocks("sh")) {
                if (block.notRunReason().isPresent()) {
                    System.out.println("[markdown] not run: " + block.where() + ": " + block.notRunReason().get());
                    continue;
                }
                for (int paste = 1; paste <= 2; paste++) {
                    ShellBlocks.Run run = ShellBlocks.run(block, checkout, uri);
                    if (run.exitCode() != 0) {
                        failures.add(block.where() + " (run " + paste + ") exited " + run.exitCode() + ":\n"
                                + String.join("\n", run.lines()));
                    }
                    Optional<Markdown.Block> expected = block.output();
                    if (expected.isPresent()) {
                        ShellBlocks.differences(expected.get(), run.lines()).forEach(difference ->
                                failures.add(difference));
                    }
                }
                ran++;
            }
        }
        assertThat(failures).as("shell blocks that failed or printed something else").isEmpty();
        assertThat(ran).as("shell blocks run").isGreaterThanOrEqualTo(1);
        assertThat(Files.exists(checkout.resolve("data"))).isTrue();
    }

    @Test
    void anOutputLineMatchesWithEllipsesAsAnyText() {
        assertThat(ShellBlocks.matches("{\"valid\":true,\"userId\":\"…\"}", "{\"valid\":true,\"userId\":\"u-1\"}"))
                .isTrue();
        assertThat(ShellBlocks.matches("{\"valid\":true}", "{\"valid\":false}")).isFalse();
        assertThat(ShellBlocks.matches("a…c", "ab")).isFalse();
    }
}

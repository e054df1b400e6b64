package dev.verificationservice.testsupport.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every module finds the one dynalite the test-support module installs, from its own directory or the root. */
class DynaliteCliTest {

    @TempDir
    Path repository;

    private Path install() throws IOException {
        Path cli = repository.resolve(DynaliteCli.INSTALLED);
        Files.createDirectories(cli.getParent());
        Files.writeString(cli, "// dynalite");
        return cli;
    }

    @Test
    void aModuleFindsTheInstallOfTestSupportAboveIt() throws IOException {
        Path cli = install();
        Path module = Files.createDirectories(repository.resolve("server"));

        assertThat(DynaliteCli.locate(null, module)).isEqualTo(cli.toAbsolutePath());
        assertThat(DynaliteCli.locate(null, repository)).as("from the root (dev/local-dynamodb, bench/run)")
                .isEqualTo(cli.toAbsolutePath());
        assertThat(DynaliteCli.locate(null, repository.resolve("test-support"))).isEqualTo(cli.toAbsolutePath());
    }

    @Test
    void theSystemPropertyWins() throws IOException {
        install();
        Path other = repository.resolve("elsewhere/cli.js");
        Files.createDirectories(other.getParent());
        Files.writeString(other, "// another dynalite");

        assertThat(DynaliteCli.locate(other.toString(), repository)).isEqualTo(other.toAbsolutePath());
    }

    @Test
    void withoutAnInstallItSaysHowToGetOne() {
        assertThatThrownBy(() -> DynaliteCli.locate(null, repository))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("npm ci")
                .hasMessageContaining("without -DskipTests")
                .hasMessageContaining("-Ddynalite.cli");
        assertThatThrownBy(() -> DynaliteCli.locate(repository.resolve("missing.js").toString(), repository))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("missing.js");
    }
}

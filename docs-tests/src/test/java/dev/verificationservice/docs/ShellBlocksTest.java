package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shell block leaves no process behind, whether it ends, fails or hangs past its timeout. */
class ShellBlocksTest {

    private static final URI NO_SERVER = URI.create("http://127.0.0.1:9");

    @TempDir
    Path directory;

    @Test
    void aProcessABlockStartedInTheBackgroundEndsWithTheBlock() throws Exception {
        ShellBlocks.Run run = ShellBlocks.run(block("sleep 600 & echo $! > background.pid\necho done"), directory,
                NO_SERVER);

        assertThat(run.exitCode()).isZero();
        assertThat(run.lines()).containsExactly("done");
        assertEnded(backgroundPid());
    }

    @Test
    void aBlockThatHangsFailsNamingItsPlaceAndWhatItPrintedAndLeavesNothingRunning() throws Exception {
        assertThatThrownBy(() -> ShellBlocks.run(block("sleep 600 & echo $! > background.pid\necho waiting\nwait"),
                directory, NO_SERVER, 2))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("test.md:1: still running after 2 s")
                .hasMessageContaining("waiting");
        assertEnded(backgroundPid());
    }

    @Test
    void aBlockThatFailsHalfwayLeavesNothingRunning() throws Exception {
        ShellBlocks.Run run = ShellBlocks.run(block("sleep 600 & echo $! > background.pid\nfalse\necho unreached"),
                directory, NO_SERVER);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.lines()).isEmpty();
        assertEnded(backgroundPid());
    }

    private long backgroundPid() throws Exception {
        return Long.parseLong(Files.readString(directory.resolve("background.pid")).trim());
    }

    private static void assertEnded(long pid) {
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("the block's background process %d is still running", pid).isFalse();
    }

    private Markdown.Block block(String text) {
        return new Markdown.Block(directory.resolve("test.md"), 1, "sh", text + "\n", Optional.empty(),
                Optional.empty());
    }
}

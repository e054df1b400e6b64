package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.VerificationServerApplication;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/configuration.md's refused start, as it says: the service started in a JVM of its own with
 * {@code VERIFICATION_STORE=dynamodb} and a too-short admin key, and nothing else of the verification set, prints
 * the report of the {@code output} block that shows it (each {@code …} any text within its line), and before it
 * no error and no stack trace.
 */
class RefusedStartReportTest {

    private static final long TIMEOUT_SECONDS = 120;

    @TempDir
    Path directory;

    @Test
    void aStartOnDynamoDbWithNothingSetPrintsTheReportOfTheDocumentation() throws Exception {
        Markdown.Block documented = Markdown.read(Markdown.ROOT.resolve("docs/configuration.md")).blocks("output")
                .stream().filter(block -> block.text().contains("APPLICATION FAILED TO START")).findFirst()
                .orElseThrow(() -> new AssertionError("docs/configuration.md shows no refused start"));

        List<String> printed = refusedStart(Map.of("VERIFICATION_STORE", "dynamodb",
                "VERIFICATION_ADMIN_API_KEYS", "short-admin-key"));

        int banner = printed.indexOf("APPLICATION FAILED TO START") - 1;
        assertThat(banner).as("the failure report in:%n%s", String.join("\n", printed)).isPositive();
        List<String> before = printed.subList(0, banner);
        assertThat(before.stream().filter(line -> line.contains("ERROR")))
                .as("error lines before the report, besides the report's own").singleElement().asString()
                .contains("LoggingFailureAnalysisReporter");
        assertThat(before).noneMatch(line -> line.startsWith("\tat ") || line.startsWith("Caused by"));
        List<String> report = printed.subList(banner, printed.size());
        assertThat(ShellBlocks.differences(documented, report)).as("the report against %s", documented.where())
                .isEmpty();
    }

    /** What the service prints when started with {@code settings} as its only verification environment variables. */
    private List<String> refusedStart(Map<String, String> settings) throws Exception {
        Path output = directory.resolve("out.txt");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), VerificationServerApplication.class.getName())
                .directory(directory.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("VERIFICATION_") || name.startsWith("SPRING_"));
        builder.environment().put("SERVER_PORT", "0");
        builder.environment().putAll(settings);
        Process service = builder.start();
        try {
            assertThat(service.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("the refused start ended").isTrue();
        } finally {
            service.destroyForcibly();
        }
        assertThat(service.exitValue()).isEqualTo(1);
        List<String> lines = Files.readString(output, StandardCharsets.UTF_8).lines().map(String::stripTrailing).toList();
        int last = lines.size();
        while (last > 0 && lines.get(last - 1).isEmpty()) {
            last--;
        }
        return lines.subList(0, last);
    }
}

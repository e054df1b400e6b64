package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run} as the first start of a fresh clone, on a copy of the jar the build made (an integration test:
 * the executable jar exists only after {@code package}). A copy, so that a {@code ./run} already going in this
 * checkout (CI's) keeps its extracted jar and archive. Its training start must leave an archive that holds what
 * a start needs up to its first readiness answer: the classes that answering loads are read from the archive, not
 * looked up in the jars and verified again at every start.
 */
class RunScriptIT {

    private static final Duration READY_WITHIN = Duration.ofMinutes(5);
    /**
     * What a start must not load before its first readiness answer, since nothing on the way needs it: Hibernate
     * Validator (nothing is validated with it), the webhook relay's HTTP client and TLS (built on the first
     * delivery), the JVM's MBean server (no Tomcat session meters). Each cost CPU on the way to readiness.
     */
    private static final List<String> NOT_BEFORE_READY = List.of("org.hibernate.validator.",
            "jdk.internal.net.http.HttpClientImpl ", "sun.security.ssl.SSLContextImpl ",
            "com.sun.jmx.mbeanserver.JmxMBeanServer ");
    /** Classes a start may still load from the jars: a few the JVM cannot archive (they fail to link). */
    private static final int FROM_JARS_AT_MOST = 20;

    @TempDir
    Path checkout;

    @Test
    void theTrainingStartArchivesWhatAStartNeedsUntilReadiness() throws Exception {
        Path jar = Markdown.ROOT.resolve("server/target/verification-server.jar");
        assertThat(jar).as("the server's executable jar (mvn verify builds it before this test)").exists();
        Files.copy(Markdown.ROOT.resolve("run"), checkout.resolve("run"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(checkout.resolve("server/target"));
        Files.copy(jar, checkout.resolve("server/target/verification-server.jar"));
        int port = freePort();
        // Each JVM ./run starts logs the classes it loads, and from where, to a file of its own (%p: its pid).
        ProcessBuilder builder = new ProcessBuilder("./run").directory(checkout.toFile()).redirectErrorStream(true)
                .redirectOutput(checkout.resolve("run.log").toFile());
        builder.environment().put("RUN_SKIP_BUILD", "1");
        builder.environment().put("SERVER_PORT", Integer.toString(port));
        builder.environment().put("VERIFICATION_DATA_DIR", checkout.resolve("data").toString());
        builder.environment().put("JAVA_TOOL_OPTIONS",
                "-Xlog:class+load=info:file=" + checkout.resolve("classes-%p.log"));
        Process run = builder.start();
        try {
            awaitReady(run, port);
            // ./run ends in exec: the serving JVM is the process started here.
            List<String> loaded = Files.readAllLines(checkout.resolve("classes-" + run.pid() + ".log"));
            List<String> fromJars = loaded.stream()
                    .filter(line -> line.contains("source: file:") && line.contains("server/target/app/")).toList();
            assertThat(fromJars).as("classes loaded from the jars, not the archive, until the first readiness answer")
                    .hasSizeLessThanOrEqualTo(FROM_JARS_AT_MOST);
            assertThat(loaded.stream().filter(line -> NOT_BEFORE_READY.stream().anyMatch(line::contains)).toList())
                    .as("classes a start loads though nothing before the first readiness answer needs them")
                    .isEmpty();
        } finally {
            run.descendants().forEach(ProcessHandle::destroy); // a training start still going
            run.destroy();
            if (!run.waitFor(60, TimeUnit.SECONDS)) {
                run.destroyForcibly();
            }
        }
    }

    private void awaitReady(Process run, int port) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest readiness = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/actuator/health/readiness")).timeout(Duration.ofSeconds(10)).build();
        Instant deadline = Instant.now().plus(READY_WITHIN);
        while (Instant.now().isBefore(deadline)) {
            assertThat(run.isAlive()).as("./run is running (its output: %s)", checkout.resolve("run.log")).isTrue();
            try {
                if (client.send(readiness, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notListeningYet) {
                // polled again below
            }
            run.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("./run not ready within " + READY_WITHIN + ": " + Files.readString(
                checkout.resolve("run.log")));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

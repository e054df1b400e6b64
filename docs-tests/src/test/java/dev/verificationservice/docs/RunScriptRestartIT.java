package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run}'s decision whether to build, as docs/deployment.md states it, on a copy of the checkout's files
 * (never the checkout itself: a source whose time changed there would make CI's own {@code ./run} build again).
 * Maven is a stand-in on the {@code PATH} that counts its calls and leaves in the tree what the real build leaves
 * there (a {@code target} folder in each module, the executable jar the checkout's build made): the decision is
 * {@code ./run}'s own code, and a test need not wait a minute for a real build to see it.
 */
class RunScriptRestartIT {

    private static final Duration READY_WITHIN = Duration.ofMinutes(5);
    private static final Pattern STARTED_ON = Pattern.compile("Tomcat started on port (\\d+)");
    /** Folders the checkout holds that a fresh clone does not: builds, npm's installs, git's own. */
    private static final Set<String> NOT_COPIED = Set.of(".git", "target", "node_modules");
    private static final String FIRST = "run: building the service (once; later starts skip this until a source changes)";
    private static final String UNCHANGED =
            "run: nothing changed since the last build; starting it (RUN_BUILD=1 ./run rebuilds anyway)";
    private static final String PREPARING = "run: preparing a fast start for Java ";
    private static final String FORCED = "run: building, since RUN_BUILD=1";

    @TempDir
    Path checkout;

    @TempDir
    Path tools;

    @Test
    void aSecondStartBuildsNothingAndAChangedSourceBuildsAgain() throws Exception {
        Path jar = Markdown.ROOT.resolve("server/target/verification-server.jar");
        assertThat(jar).as("the server's executable jar (mvn verify builds it before this test)").exists();
        copyCheckout();
        Path builds = tools.resolve("builds");
        Files.createFile(builds);
        standInMaven(jar, builds);

        String first = startUntilReady(1);
        assertThat(first).contains(FIRST, PREPARING);
        assertThat(Files.readAllLines(builds)).hasSize(1);
        Path extracted = checkout.resolve("server/target/app/.extracted");
        FileTime extractedAt = Files.getLastModifiedTime(extracted);

        String second = startUntilReady(2);
        assertThat(second).contains(UNCHANGED).doesNotContain("run: building").doesNotContain(PREPARING);
        assertThat(Files.readAllLines(builds)).as("Maven's calls").hasSize(1);
        assertThat(Files.getLastModifiedTime(extracted)).as("the jar extracted again").isEqualTo(extractedAt);

        Path source = checkout.resolve("core/src/main/java/dev/verificationservice/Verification.java");
        Files.writeString(source, Files.readString(source) + "\n");
        assertThat(Files.getLastModifiedTime(source)).as("the premise: the source is newer than the last build")
                .isGreaterThan(Files.getLastModifiedTime(checkout.resolve("server/target/.run-built")));
        String third = startUntilReady(3);
        assertThat(third).contains("run: building, since core/src/main/java/dev/verificationservice/Verification.java"
                + " changed after the last build", PREPARING);
        assertThat(Files.readAllLines(builds)).as("Maven's calls").hasSize(2);

        // Forced, and the build fails this time: ./run ends there, with no JVM started on the old jar.
        String forced = startUntilEnd(4, Map.of("RUN_BUILD", "1", "STAND_IN_BUILD", "fail"));
        assertThat(forced).contains(FORCED).doesNotContain("Tomcat started");
        assertThat(Files.readAllLines(builds)).as("Maven's calls").hasSize(3);

        assertThat(Files.readString(Markdown.ROOT.resolve("docs/deployment.md")))
                .as("docs/deployment.md quotes what ./run says").contains(FIRST, UNCHANGED, FORCED,
                        "run: building, since <file> changed after the last build", PREPARING);
    }

    /** The checkout as a fresh clone has it: every file but builds and git's, each with the time of the copy. */
    private void copyCheckout() throws IOException {
        Files.walkFileTree(Markdown.ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) throws IOException {
                Path relative = Markdown.ROOT.relativize(directory);
                // ./data: the embedded store of a ./run going in the checkout
                if (NOT_COPIED.contains(directory.getFileName().toString()) || relative.toString().equals("data")) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(checkout.resolve(relative.toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile() && !file.getFileName().toString().equals(".git")) {
                    Files.copy(file, checkout.resolve(Markdown.ROOT.relativize(file).toString()));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        Files.setPosixFilePermissions(checkout.resolve("run"), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /**
     * What {@code mvn package -pl server -am} leaves where ./run looks: a target folder in every module, a new
     * executable jar. With {@code STAND_IN_BUILD=fail} it fails instead, as a broken build does.
     */
    private void standInMaven(Path jar, Path builds) throws IOException {
        Path mvn = tools.resolve("mvn");
        Files.writeString(mvn, String.join("\n", "#!/usr/bin/env bash", "set -euo pipefail", "shopt -s nullglob",
                "echo \"$*\" >> '" + builds + "'",
                "if [ \"${STAND_IN_BUILD:-}\" = fail ]; then echo 'stand-in build: failed' >&2; exit 1; fi",
                "for pom in */pom.xml */*/pom.xml; do mkdir -p \"${pom%/pom.xml}/target\"; done",
                "cp '" + jar + "' server/target/verification-server.jar", ""));
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private ProcessBuilder run(int start, Map<String, String> environment) {
        // Each start's output in a file of its own: nothing reads a pipe that could fill and stall it.
        ProcessBuilder builder = new ProcessBuilder("./run").directory(checkout.toFile()).redirectErrorStream(true)
                .redirectOutput(log(start).toFile());
        Map<String, String> env = builder.environment();
        env.remove("RUN_BUILD");
        env.remove("RUN_SKIP_BUILD");
        env.put("PATH", tools + ":" + env.get("PATH"));
        env.put("SERVER_ADDRESS", "127.0.0.1");
        env.put("SERVER_PORT", "0"); // the port the system gives: the log names it
        env.putAll(environment);
        return builder;
    }

    private Path log(int start) {
        return checkout.resolve("run-" + start + ".log");
    }

    /** A start that builds, if at all, with the stand-in, then serves: until its readiness answers 200. */
    private String startUntilReady(int start) throws IOException, InterruptedException {
        Process run = run(start, Map.of()).start();
        try {
            awaitReady(run, start);
            return Files.readString(log(start));
        } finally {
            run.descendants().forEach(ProcessHandle::destroy); // a training start still going
            run.destroy();
            if (!run.waitFor(60, TimeUnit.SECONDS)) {
                run.destroyForcibly();
            }
        }
    }

    /** A start whose build fails: ./run ends with it. */
    private String startUntilEnd(int start, Map<String, String> environment) throws IOException, InterruptedException {
        Process run = run(start, environment).start();
        try {
            assertThat(run.waitFor(READY_WITHIN.toSeconds(), TimeUnit.SECONDS)).as("./run ended").isTrue();
            String output = Files.readString(log(start));
            assertThat(run.exitValue()).as("./run's exit status after a failed build: %s", output).isNotZero();
            return output;
        } finally {
            run.destroyForcibly();
        }
    }

    private void awaitReady(Process run, int start) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        Instant deadline = Instant.now().plus(READY_WITHIN);
        while (Instant.now().isBefore(deadline)) {
            assertThat(run.isAlive()).as("./run is running (its output: %s)", Files.readString(log(start))).isTrue();
            Optional<String> port = port(start);
            if (port.isPresent()) {
                HttpRequest readiness = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.get()
                        + "/actuator/health/readiness")).timeout(Duration.ofSeconds(10)).build();
                try {
                    if (client.send(readiness, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException notReadyYet) {
                    // polled again below
                }
            }
            run.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("./run not ready within " + READY_WITHIN + ": " + Files.readString(log(start)));
    }

    private Optional<String> port(int start) throws IOException {
        Matcher started = STARTED_ON.matcher(Files.readString(log(start)));
        return started.find() ? Optional.of(started.group(1)) : Optional.empty();
    }
}

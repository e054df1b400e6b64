package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the server under load, on the embedded store, then a restart on the same data directory:
 * every consume and every failed guess the server acknowledged before it died is still there (the code
 * answers USED, its CODE_VERIFIED entry exists, the failure count holds every acknowledged failure).
 *
 * <p>What this shows is that an acknowledgement is only sent after the commit, and that a killed process
 * leaves a database that opens. A power loss, which also drops what the operating system had not yet written,
 * cannot be played here; against that the store syncs the log before any answer, which
 * {@code GroupCommitWriterTest} and {@code SqliteVerificationStoreTest} check.
 */
class EmbeddedCrashTest {

    private static final String API_KEY = AbstractApiTest.API_KEY;
    private static final int USERS = 24;

    @TempDir
    Path dataDirectory;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedConsumeAndFailureSurvivesAKill() throws Exception {
        ServerProcess first = ServerProcess.start(dataDirectory);
        ApiClient api = new ApiClient(first.port, API_KEY);
        // One code per user, read from the outbox before the crash (the outbox is memory only).
        Map<String, String> codes = new ConcurrentHashMap<>();
        for (int i = 0; i < USERS; i++) {
            String user = "crash-" + i;
            Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                    "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com"));
            assertThat(sent.status()).isEqualTo(202);
            codes.put(user, api.get("/dev/outbox").json().get("messages").get(0).get("code").asString());
        }

        Map<String, Boolean> acknowledgedConsumes = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> acknowledgedFailures = new ConcurrentHashMap<>();
        CountDownLatch enoughAcknowledged = new CountDownLatch(USERS);
        ExecutorService load = Executors.newFixedThreadPool(6);
        for (int i = 0; i < USERS; i++) {
            String user = "crash-" + i;
            load.submit(() -> {
                try {
                    // Two wrong guesses, then the right code: each answer received is an acknowledgement.
                    for (int guess = 0; guess < 2; guess++) {
                        Answer wrong = verify(api, user, wrongCode(codes.get(user)));
                        if (wrong.status() == 200 && !wrong.json().get("valid").asBoolean()) {
                            acknowledgedFailures.computeIfAbsent(user, key -> new AtomicInteger()).incrementAndGet();
                        }
                    }
                    Answer right = verify(api, user, codes.get(user));
                    if (right.status() == 200 && right.json().get("valid").asBoolean()) {
                        acknowledgedConsumes.put(user, true);
                    }
                } catch (RuntimeException connectionGone) {
                    // The server was killed during this request: it was never acknowledged.
                } finally {
                    enoughAcknowledged.countDown();
                }
            });
            if (i == USERS / 2) {
                // Kill while the second half is still being sent.
                load.submit(first::kill);
            }
        }
        load.shutdown();
        assertThat(load.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        first.kill();
        assertThat(acknowledgedConsumes).as("some consumes were acknowledged before the kill").isNotEmpty();

        ServerProcess second = ServerProcess.start(dataDirectory);
        try {
            ApiClient after = new ApiClient(second.port, API_KEY);
            for (String user : acknowledgedConsumes.keySet()) {
                Answer again = verify(after, user, codes.get(user));
                assertThat(again.json().get("reason").asString()).as(user + "'s acknowledged consume").isEqualTo("USED");
                String audit = after.get("/v1/users/" + user + "/audit").raw().body();
                assertThat(audit).as(user + "'s audit").contains("\"CODE_VERIFIED\"");
            }
            for (Map.Entry<String, AtomicInteger> failures : acknowledgedFailures.entrySet()) {
                Answer limits = after.get("/v1/users/" + failures.getKey() + "/rate-limits");
                long counted = 0;
                for (var limit : limits.json().get("limits")) {
                    if (limit.get("action").asString().equals("VERIFY_EMAIL_VERIFICATION")) {
                        counted = limit.get("count").asLong();
                    }
                }
                assertThat(counted).as(failures.getKey() + "'s acknowledged failures")
                        .isGreaterThanOrEqualTo(failures.getValue().get());
            }
        } finally {
            second.kill();
        }
    }

    private static Answer verify(ApiClient api, String user, String code) {
        return api.post("/v1/codes/verify", Map.of("code", code, "userId", user, "codeType", "EMAIL_VERIFICATION"));
    }

    private static String wrongCode(String code) {
        return code.equals("000000") ? "111111" : "000000";
    }

    /** The server in a JVM of its own, started from this test's classpath without the test classes. */
    static final class ServerProcess {
        /** Spring Boot's line once Tomcat listens, e.g. "Tomcat started on port 41234 (http) with context path '/'". */
        private static final Pattern TOMCAT_STARTED = Pattern.compile("Tomcat started on port\\(?s?\\)?:? (\\d+)");

        final Process process;
        final int port;

        private ServerProcess(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static ServerProcess start(Path dataDirectory, String... moreArguments) throws IOException, InterruptedException {
            String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                    .filter(entry -> !entry.endsWith("test-classes"))
                    .collect(Collectors.joining(File.pathSeparator));
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", classpath, "-XX:TieredStopAtLevel=1",
                    "dev.verificationservice.server.VerificationServerApplication",
                    // Port 0: the server takes a free port itself and names it in its log (a port chosen here and
                    // closed again could be taken by another process before the server binds it).
                    "--server.port=0", "--server.address=127.0.0.1",
                    "--verification.data-dir=" + dataDirectory,
                    "--verification.api-keys=" + API_KEY,
                    "--verification.secret-keys=" + AbstractApiTest.HMAC_KEY));
            command.addAll(List.of(moreArguments));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            // Ready when Spring Boot says it started; its output is then drained so the process never blocks.
            String line;
            int port = -1;
            while ((line = output.readLine()) != null) {
                Matcher started = TOMCAT_STARTED.matcher(line);
                if (started.find()) {
                    port = Integer.parseInt(started.group(1));
                }
                if (line.contains("Started VerificationServerApplication")) {
                    break;
                }
            }
            if (line == null || port < 0) {
                throw new IllegalStateException("the server process ended before it started (exit " + process.waitFor() + ")");
            }
            Thread drain = new Thread(() -> output.lines().forEach(ignored -> { }), "crash-test-drain");
            drain.setDaemon(true);
            drain.start();
            return new ServerProcess(process, port);
        }

        /** SIGKILL: no shutdown hook, no graceful close of the pool or the database. */
        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

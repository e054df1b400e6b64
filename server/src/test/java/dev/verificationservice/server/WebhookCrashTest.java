package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.server.EmbeddedCrashTest.ServerProcess;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real server process (as {@link EmbeddedCrashTest} does) while events are pending: the receiver holds
 * the first requests unanswered, so the relay is mid-delivery and the rest wait in the outbox. After a restart on the
 * same data directory, every event of every change the first process acknowledged arrives (at least once): the
 * event was written with the change, not after it. Attempts cut off by the kill are due again once their lease ends.
 */
class WebhookCrashTest {

    private static final String ADMIN_KEY = "crash-admin-key-0123456789abcdefghijklmn";
    private static final int USERS = 16;
    private static final Pattern USER_AND_TYPE = Pattern.compile("\"type\":\"([a-z.]+)\".*\"userId\":\"([^\"]+)\"");

    @TempDir
    Path dataDirectory;

    /** "code.sent user-1": what an event is about, read from its body. */
    private static String typeAndUser(WebhookReceiver.Received request) {
        Matcher event = USER_AND_TYPE.matcher(request.bodyText());
        return event.find() ? event.group(1) + " " + event.group(2) : "";
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyEventOfEveryAcknowledgedChangeArrivesAfterAKill() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver().hanging()) {
            ServerProcess first = ServerProcess.start(dataDirectory, "--verification.admin-api-keys=" + ADMIN_KEY);
            ApiClient api = new ApiClient(first.port, AbstractApiTest.API_KEY);
            Answer registered = new ApiClient(first.port, ADMIN_KEY).post("/v1/admin/webhooks",
                    Map.of("url", receiver.url().toString(), "eventTypes", List.of("code.sent", "code.verified")));
            assertThat(registered.status()).as(registered.raw().body()).isEqualTo(201);

            // A first event reaches the receiver, which holds it: the relay is mid-delivery from here on.
            Set<String> expected = ConcurrentHashMap.newKeySet();
            assertThat(api.post("/v1/codes", Map.of("userId", "hook-crash-first", "codeType", "EMAIL_VERIFICATION",
                    "deliveryMethod", "EMAIL", "deliveryTarget", "first@example.com")).status()).isEqualTo(202);
            expected.add("code.sent hook-crash-first");
            long firstDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (receiver.hangingNow() < 1) {
                assertThat(System.nanoTime()).as("the first event reached the receiver").isLessThan(firstDeadline);
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }

            // Changes under load, each acknowledged answer noted as the events it must produce; the kill comes midway.
            ExecutorService load = Executors.newFixedThreadPool(4);
            for (int i = 0; i < USERS; i++) {
                String user = "hook-crash-" + i;
                load.submit(() -> {
                    try {
                        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                                "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com"));
                        if (sent.status() != 202) {
                            return;
                        }
                        expected.add("code.sent " + user);
                        String code = api.get("/dev/outbox?userId=" + user).json().get("messages").get(0)
                                .get("code").asString();
                        Answer verified = api.post("/v1/codes/verify", Map.of("code", code, "userId", user,
                                "codeType", "EMAIL_VERIFICATION"));
                        if (verified.status() == 200 && verified.json().get("valid").asBoolean()) {
                            expected.add("code.verified " + user);
                        }
                    } catch (RuntimeException connectionGone) {
                        // The server was killed during this request: it was never acknowledged.
                    }
                });
                if (i == USERS / 2) {
                    load.submit(first::kill);
                }
            }
            load.shutdown();
            assertThat(load.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            first.kill();
            assertThat(expected).as("changes acknowledged before the kill").isNotEmpty();
            assertThat(receiver.hangingNow()).as("deliveries in flight at the kill").isGreaterThanOrEqualTo(1);

            // The receiver answers from now on; a second process on the same data directory delivers.
            receiver.release();
            ServerProcess second = ServerProcess.start(dataDirectory, "--verification.admin-api-keys=" + ADMIN_KEY);
            try {
                // A lease taken by the killed process ends 60 s after it was taken: allow for it.
                long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
                for (String event : expected) {
                    Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
                    receiver.awaitMatching(request -> event.equals(typeAndUser(request)), 1, left);
                }
            } finally {
                second.kill();
            }
        }
    }
}

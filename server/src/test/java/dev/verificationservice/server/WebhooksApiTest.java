package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.webhooks.StandardWebhooksVerifier;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Events out over the operator API (contract §15), through the real server, its relay and a real receiver (a JDK
 * {@code HttpServer} on a free port): what arrives, signed as Standard Webhooks say (checked by an implementation of
 * the test's own), what the operator API answers and refuses, and that a hanging receiver does not slow the API.
 */
class WebhooksApiTest extends EmbeddedOnlyApiTest {

    /** How long an event may take to arrive before the test fails (the relay polls every second). */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final List<WebhookReceiver> receivers = new ArrayList<>();
    private final List<String> endpoints = new ArrayList<>();

    @AfterEach
    void removeEndpointsAndReceivers() {
        endpoints.forEach(endpointId -> admin().delete("/v1/admin/webhooks/" + endpointId));
        receivers.forEach(WebhookReceiver::close);
    }

    private WebhookReceiver receiver() {
        WebhookReceiver receiver = new WebhookReceiver();
        receivers.add(receiver);
        return receiver;
    }

    private Answer register(String url, List<String> eventTypes) {
        Answer registered = admin().post("/v1/admin/webhooks", Map.of("url", url, "eventTypes", eventTypes,
                "description", "test receiver"));
        if (registered.status() == 201) {
            endpoints.add(registered.text("endpointId"));
        }
        return registered;
    }

    private static Predicate<WebhookReceiver.Received> event(String type, String userId) {
        return request -> request.bodyText().contains("\"type\":\"" + type + "\"")
                && request.bodyText().contains("\"userId\":\"" + userId + "\"");
    }

    /** The request carries a signature of this secret (checked as a receiver would, at the service's time). */
    private boolean signedWith(String secret, WebhookReceiver.Received request) {
        return new StandardWebhooksVerifier(secret).verifies(request.id(), request.timestamp(), request.signature(),
                request.body(), clock.instant());
    }

    private static int signatures(WebhookReceiver.Received request) {
        return request.signature().split(" ").length;
    }

    private static Predicate<WebhookReceiver.Received> id(String eventId) {
        return request -> eventId.equals(request.id());
    }

    @Test
    void aSentAndVerifiedCodeArriveAsSignedEventsAndTheDeliveriesSaySo() throws Exception {
        WebhookReceiver receiver = receiver();
        Answer registered = register(receiver.url().toString(), List.of("code.sent", "code.verified"));
        assertThat(registered.status()).isEqualTo(201);
        assertThat(registered.header("Cache-Control")).isEqualTo("no-store");
        String endpointId = registered.text("endpointId");
        String secret = registered.text("secret");
        assertThat(secret).startsWith("whsec_");
        String user = newUser();

        sendEmailCode(user);
        assertThat(verify(user, codeFromOutbox()).json().get("valid").asBoolean()).isTrue();

        WebhookReceiver.Received sent = receiver.awaitMatching(event("code.sent", user), 1, PATIENCE);
        WebhookReceiver.Received verified = receiver.awaitMatching(event("code.verified", user), 1, PATIENCE);
        for (WebhookReceiver.Received request : List.of(sent, verified)) {
            assertThat(signedWith(secret, request)).as(request.bodyText()).isTrue();
            assertThat(request.contentType()).startsWith("application/json");
            assertThat(request.id()).startsWith("evt_");
            assertThat(request.timestamp()).isEqualTo(Long.toString(TestClockConfiguration.START.getEpochSecond()));
            assertThat(request.bodyText()).doesNotContain(emailOf(user)).doesNotContain(secret);
        }
        assertThat(sent.bodyText()).contains("\"timestamp\":\"2026-11-30T10:00:00.000Z\"");

        // The operator sees both deliveries, answered 204 (the outcome is written just after the answer).
        until(() -> deliveries(endpointId).stream().filter(d -> d.get("userId").asString().equals(user))
                .filter(d -> d.get("status").asString().equals("DELIVERED")).count() == 2);
        JsonNode delivery = deliveries(endpointId).stream()
                .filter(d -> d.get("eventId").asString().equals(verified.id())).findFirst()
                .orElseThrow();
        assertThat(delivery.get("type").asString()).isEqualTo("code.verified");
        assertThat(delivery.get("answerCode").asInt()).isEqualTo(204);
        assertThat(delivery.get("attempts").asInt()).isEqualTo(1);
        // The secret is never shown again.
        assertThat(admin().get("/v1/admin/webhooks").raw().body()).contains(endpointId).doesNotContain(secret);
        assertThat(admin().get("/v1/admin/webhooks/" + endpointId).raw().body()).doesNotContain(secret);
    }

    @Test
    void refusedEndpointsNameTheFieldAndWriteNothing() {
        List<String> before = endpointIds();
        List<String> refusedUrls = List.of("http://hooks.example.com/x", "https://10.0.0.7/hook",
                "https://169.254.169.254/latest", "http://127.0.0.1:9/hook", "https://[::1]/hook",
                "https://[64:ff9b::7f00:1]:9199/", "https://[::127.0.0.1]/", "https://[2002:7f00:1::]/",
                "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "https://255.255.255.255/",
                "https://hooks.example.com:0/x", "https://hooks.example.com:99999/x", "ftp://hooks.example.com/x",
                "not a url");
        for (String url : refusedUrls) {
            Answer refused = register(url, List.of());
            assertThat(refused.status()).as(url).isEqualTo(400);
            assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
            assertThat(refused.text("field")).as(url).isEqualTo("url");
        }
        Answer unknownType = register("https://hooks.example.com/x", List.of("code.sent", "code.sentt"));
        assertThat(unknownType.status()).isEqualTo(400);
        assertThat(unknownType.text("field")).isEqualTo("eventTypes");
        assertThat(unknownType.text("detail")).contains("code.sentt");
        Answer noUrl = admin().post("/v1/admin/webhooks", Map.of("eventTypes", List.of()));
        assertThat(noUrl.status()).isEqualTo(400);
        assertThat(noUrl.text("field")).isEqualTo("url");
        assertThat(endpointIds()).isEqualTo(before);

        Answer badId = admin().post("/v1/admin/webhooks/nope/rotate-secret", Map.of());
        assertThat(badId.status()).isEqualTo(400);
        assertThat(badId.text("field")).isEqualTo("endpointId");
        Answer unknownId = admin().delete("/v1/admin/webhooks/ep_000000000000000000000000");
        assertThat(unknownId.status()).isEqualTo(400);
        assertThat(unknownId.text("field")).isEqualTo("endpointId");
    }

    @Test
    void anApplicationKeyCannotManageEndpoints() {
        Answer refused = api.post("/v1/admin/webhooks", Map.of("url", "https://hooks.example.com/x"));
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.text("code")).isEqualTo("FORBIDDEN");
        assertThat(api.get("/v1/admin/webhooks").status()).isEqualTo(403);
    }

    @Test
    void rotationSignsWithBothSecretsAndRedeliveryDisableAndDeleteWork() throws Exception {
        WebhookReceiver receiver = receiver();
        Answer registered = register(receiver.url().toString(), List.of("code.sent"));
        String endpointId = registered.text("endpointId");
        String first = registered.text("secret");
        String user = newUser();
        sendEmailCode(user);
        WebhookReceiver.Received original = receiver.awaitMatching(event("code.sent", user), 1, PATIENCE);
        assertThat(signatures(original)).isEqualTo(1);

        Answer rotated = admin().post("/v1/admin/webhooks/" + endpointId + "/rotate-secret", Map.of());
        assertThat(rotated.status()).isEqualTo(200);
        String second = rotated.text("secret");
        assertThat(second).startsWith("whsec_").isNotEqualTo(first);
        assertThat(rotated.json().get("endpoint").get("previousSecretSignsUntil").asString())
                .isEqualTo("2026-12-01T10:00:00.000Z");

        // Redelivery by event id: the same webhook-id and body, now signed by the new and the old secret.
        String eventId = original.id();
        Answer redelivered = admin().post("/v1/admin/webhooks/" + endpointId + "/redeliver",
                Map.of("eventId", eventId));
        assertThat(redelivered.status()).isEqualTo(202);
        WebhookReceiver.Received again = receiver.awaitMatching(id(eventId), 2, PATIENCE);
        assertThat(again.bodyText()).isEqualTo(original.bodyText());
        assertThat(signatures(again)).isEqualTo(2);
        assertThat(signedWith(second, again)).isTrue();
        assertThat(signedWith(first, again)).isTrue();

        // A day later the old secret no longer signs.
        clock.advance(Duration.ofHours(24).plusSeconds(1));
        admin().post("/v1/admin/webhooks/" + endpointId + "/redeliver", Map.of("from", "2026-11-30T09:00:00Z",
                "to", "2026-11-30T11:00:00Z"));
        WebhookReceiver.Received later = receiver.awaitMatching(id(eventId), 3, PATIENCE);
        assertThat(signatures(later)).isEqualTo(1);
        assertThat(signedWith(second, later)).isTrue();
        assertThat(signedWith(first, later)).isFalse();

        Answer both = admin().post("/v1/admin/webhooks/" + endpointId + "/redeliver", Map.of("eventId", eventId,
                "from", "2026-11-30T09:00:00Z"));
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.text("field")).isEqualTo("eventId");
        Answer crafted = admin().post("/v1/admin/webhooks/" + endpointId + "/redeliver",
                Map.of("eventId", "evt_bm90IGFuIGV2ZW50"));
        assertThat(crafted.status()).isEqualTo(400);
        assertThat(crafted.text("field")).isEqualTo("eventId");

        Answer farOff = admin().get("/v1/admin/webhooks/" + endpointId + "/deliveries?to=%2B100000-01-01T00:00:00Z");
        assertThat(farOff.status()).isEqualTo(400);
        assertThat(farOff.text("field")).isEqualTo("to");
        Answer farBack = admin().post("/v1/admin/webhooks/" + endpointId + "/redeliver",
                Map.of("from", "-100000-01-01T00:00:00Z", "to", "2026-11-30T11:00:00Z"));
        assertThat(farBack.status()).isEqualTo(400);
        assertThat(farBack.text("field")).isEqualTo("from");

        Answer enabled = admin().post("/v1/admin/webhooks/" + endpointId + "/enable", Map.of());
        assertThat(enabled.status()).isEqualTo(200);
        assertThat(enabled.text("status")).isEqualTo("ENABLED");
        assertThat(admin().delete("/v1/admin/webhooks/" + endpointId).status()).isEqualTo(200);
        assertThat(endpointIds()).doesNotContain(endpointId);
    }

    /**
     * A receiver that never answers holds the relay's workers for its endpoint, never the API's threads: while it
     * holds requests, every API call made meanwhile completes (counted, not timed).
     */
    @Test
    void aHangingReceiverDoesNotSlowTheApi() throws Exception {
        WebhookReceiver receiver = receiver().hanging();
        register(receiver.url().toString(), List.of("code.sent"));
        String first = newUser();
        sendEmailCode(first);
        until(() -> receiver.hangingNow() >= 1);

        int completed = 0;
        for (int call = 0; call < 20; call++) {
            String user = newUser();
            assertThat(sendEmailCode(user).status()).isEqualTo(202);
            assertThat(verify(user, codeFromOutbox()).json().get("valid").asBoolean()).isTrue();
            completed++;
        }

        assertThat(completed).isEqualTo(20);
        assertThat(receiver.hangingNow()).as("the receiver still holds its requests").isGreaterThanOrEqualTo(1);
    }

    private List<String> endpointIds() {
        List<String> ids = new ArrayList<>();
        admin().get("/v1/admin/webhooks").json().get("endpoints").forEach(e -> ids.add(e.get("endpointId").asString()));
        return ids;
    }

    private List<JsonNode> deliveries(String endpointId) {
        List<JsonNode> found = new ArrayList<>();
        admin().get("/v1/admin/webhooks/" + endpointId + "/deliveries").json().get("deliveries").forEach(found::add);
        return found;
    }

    /** Waits for the relay's threads to get somewhere (not for time to pass: the clock is the test's). */
    private static void until(BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("the relay did not get there in " + PATIENCE).isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }
}

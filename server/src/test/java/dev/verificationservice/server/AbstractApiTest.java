package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.store.contract.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import dev.verificationservice.store.contract.SkipReasonReporter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

/**
 * The whole API through a real HTTP port, on one store. Subclasses pick the store. Every test uses its own
 * user ids, so tests share the running service without seeing each other.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY + "," + AbstractApiTest.NEXT_API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY})
@Import(TestClockConfiguration.class)
@ExtendWith({SkipReasonReporter.class, OutputCaptureExtension.class})
abstract class AbstractApiTest {

    static final String API_KEY = "test-api-key-0123456789abcdefghijklmnop";
    static final String NEXT_API_KEY = "next-api-key-0123456789abcdefghijklmnop";
    static final String HMAC_KEY = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    private static final AtomicInteger USERS = new AtomicInteger();

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    ApiClient api;

    /** Empty when the store runs device registration; otherwise why the device flow is skipped. */
    protected Optional<String> missingTransactions() {
        return Optional.empty();
    }

    @BeforeEach
    void connect() {
        api = new ApiClient(port, API_KEY);
        clock.set(TestClockConfiguration.START);
    }

    static String newUser() {
        return "user-" + USERS.incrementAndGet() + "-" + System.nanoTime();
    }

    /** Every test user has an address of its own: sends to one address are limited whatever the user. */
    static String emailOf(String userId) {
        return "jane." + userId + "@example.com";
    }

    Answer sendEmailCode(String userId) {
        return api.post("/v1/codes", Map.of("userId", userId, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(userId)));
    }

    /** The newest outbox message for this user's target, read as a developer would. */
    String codeFromOutbox() {
        Answer outbox = api.get("/dev/outbox");
        assertThat(outbox.status()).isEqualTo(200);
        return outbox.json().get("messages").get(0).get("code").asString();
    }

    Answer verify(String userId, String code) {
        return api.post("/v1/codes/verify", Map.of("code", code, "userId", userId, "codeType", "EMAIL_VERIFICATION"));
    }

    List<String> auditEventTypes(String userId) {
        List<String> types = new ArrayList<>();
        api.get("/v1/users/" + userId + "/audit?limit=100").json().get("events")
                .forEach(event -> types.add(event.get("eventType").asString()));
        return types;
    }

    @Test
    void theCodeFlowFromRequestToLockOut() {
        String user = newUser();
        Answer sent = sendEmailCode(user);
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.json().get("maskedTarget").asString()).isEqualTo("j***@example.com");
        assertThat(sent.json().get("expiresAt").asString()).isEqualTo("2026-11-30T10:15:00.000Z");
        assertThat(sent.raw().body()).doesNotContain(emailOf(user));

        Answer outbox = api.get("/dev/outbox");
        JsonNode message = outbox.json().get("messages").get(0);
        assertThat(message.get("channel").asString()).isEqualTo("EMAIL");
        assertThat(message.get("to").asString()).isEqualTo(emailOf(user));
        String code = message.get("code").asString();
        assertThat(message.get("body").asString()).contains(code);

        Answer check = api.post("/v1/codes/check", Map.of("code", code, "userId", user, "codeType", "EMAIL_VERIFICATION"));
        assertThat(check.status()).isEqualTo(200);
        assertThat(check.json().get("valid").asBoolean()).isTrue();
        assertThat(check.text("expiresAt")).isEqualTo("2026-11-30T10:15:00.000Z");

        Answer verified = verify(user, code);
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.text("userId")).isEqualTo(user);
        assertThat(verified.text("codeType")).isEqualTo("EMAIL_VERIFICATION");
        assertThat(verify(user, code).text("reason")).isEqualTo("USED");

        // Wrong codes until the lock-out (a new code only after the 30-second resend cooldown).
        clock.advance(Duration.ofSeconds(30));
        sendEmailCode(user);
        String fresh = codeFromOutbox();
        String wrong = fresh.equals("000000") ? "111111" : "000000";
        List<String> reasons = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            reasons.add(verify(user, wrong).text("reason"));
        }
        // The USED answer above was the first failure of the window.
        assertThat(reasons).containsExactly("NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "TOO_MANY_ATTEMPTS", "TOO_MANY_ATTEMPTS");
        assertThat(verify(user, fresh).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");

        // A new request while locked out, and later the sixth request of the window: both 429 with Retry-After.
        Answer refused = sendEmailCode(user);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.json().get("code").asString()).isEqualTo("RATE_LIMITED");
        // The failures count over the window they happened in and the next (a live code may span both): the
        // lock-out ends at 10:30, 29 minutes 30 seconds from now.
        assertThat(refused.header("Retry-After")).isEqualTo("1770");

        List<String> history = auditEventTypes(user);
        assertThat(history.get(history.size() - 1)).isEqualTo("CODE_SENT");
        assertThat(history.get(0)).isEqualTo("RATE_LIMITED");
        assertThat(history).contains("CODE_VERIFIED", "CODE_VERIFICATION_FAILED", "CODES_INVALIDATED");
    }

    @Test
    void theSixthRequestInAWindowIsRateLimitedWithRetryAfter() {
        String user = newUser();
        for (int request = 0; request < 5; request++) {
            assertThat(sendEmailCode(user).status()).isEqualTo(202);
            clock.advance(Duration.ofSeconds(30));
        }
        clock.advance(Duration.ofMinutes(2).plusSeconds(30));
        Answer sixth = sendEmailCode(user);

        assertThat(sixth.status()).isEqualTo(429);
        assertThat(sixth.header("Content-Type")).startsWith("application/problem+json");
        assertThat(sixth.header("Retry-After")).isEqualTo("600");
        assertThat(sixth.text("action")).isEqualTo("SEND_EMAIL_VERIFICATION");

        Answer limits = api.get("/v1/users/" + user + "/rate-limits");
        assertThat(limits.json().get("limits")).anySatisfy(limit -> {
            assertThat(limit.get("action").asString()).isEqualTo("SEND_EMAIL_VERIFICATION");
            // A refused request is not counted: the count stops at the limit.
            assertThat(limit.get("count").asLong()).isEqualTo(5);
            assertThat(limit.get("limit").asInt()).isEqualTo(5);
            assertThat(limit.get("resetsAt").asString()).isEqualTo("2026-11-30T10:15:00.000Z");
        });
    }

    // Abuse controls (SPEC §10)

    @Test
    void cyclingUserIdsCannotPumpOneNumber() throws Exception {
        String number = "+4477001" + String.format("%05d", Math.floorMod(System.nanoTime(), 100_000));
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            answers.add(api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                    "deliveryMethod", "SMS", "deliveryTarget", number)));
        }

        assertThat(answers).filteredOn(answer -> answer.status() == 202).hasSize(5);
        assertThat(answers).filteredOn(answer -> answer.status() == 429).hasSize(3).allSatisfy(answer -> {
            assertThat(answer.text("code")).isEqualTo("RATE_LIMITED");
            assertThat(answer.text("action")).isEqualTo("SEND_TO_TARGET");
            assertThat(answer.header("Retry-After")).matches("[1-9][0-9]*");
        });
        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();
        assertThat(metrics).contains("verification_ratelimited_total{action=\"SEND_TO_TARGET\"");
    }

    @Test
    void aNumberThatCannotReceiveAVerificationSmsIsA400NamingTheTargetAndWhy() {
        Answer premium = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+19005550123"));
        assertThat(premium.status()).isEqualTo(400);
        assertThat(premium.text("field")).isEqualTo("deliveryTarget");
        assertThat(premium.text("detail")).contains("premium rate");

        Answer fiction = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700900123"));
        assertThat(fiction.status()).isEqualTo(400);
        assertThat(fiction.text("detail")).contains("not a valid phone number");
    }

    @Test
    void aSecondCodeWithinThirtySecondsIsRefusedWithTheSecondsToWait() {
        String user = newUser();
        assertThat(sendEmailCode(user).status()).isEqualTo(202);
        clock.advance(Duration.ofSeconds(10));

        Answer again = sendEmailCode(user);

        assertThat(again.status()).isEqualTo(429);
        assertThat(again.text("action")).isEqualTo("RESEND_EMAIL_VERIFICATION");
        assertThat(again.header("Retry-After")).isEqualTo("20");
        clock.advance(Duration.ofSeconds(20));
        assertThat(sendEmailCode(user).status()).isEqualTo(202);
    }

    @Test
    void oneClientAddressCannotSendForEveryone() {
        String ip = "198.51.100." + Math.floorMod(System.nanoTime(), 250);
        int accepted = 0;
        Answer refused = null;
        for (int i = 0; i < 21; i++) {
            String user = newUser();
            Answer answer = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                    "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com", "ipAddress", ip));
            if (answer.status() == 202) {
                accepted++;
            } else {
                refused = answer;
            }
        }
        assertThat(accepted).isEqualTo(20);
        assertThat(refused).isNotNull();
        assertThat(refused.text("action")).isEqualTo("SEND_FROM_IP");
    }

    @Test
    void noDeviceRegisteredWhileRevokeAllRunsSurvivesIt() throws Exception {
        String user = newUser();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
        List<java.util.concurrent.Future<Answer>> registrations = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String deviceId = "race-" + i;
            registrations.add(pool.submit(() -> api.post("/v1/devices", Map.of("userId", user, "deviceId", deviceId,
                    "deviceType", "WEB"))));
        }
        java.util.concurrent.Future<Answer> revokeAll = pool.submit(() -> api.delete("/v1/users/" + user + "/devices"));
        pool.shutdown();
        assertThat(revokeAll.get().status()).isEqualTo(200);

        // One instant on the test clock: every registration is at or before the revoke-all, so none may work.
        for (java.util.concurrent.Future<Answer> registration : registrations) {
            Answer registered = registration.get();
            assertThat(registered.status()).isEqualTo(201);
            Answer verified = api.post("/v1/devices/verify", Map.of("deviceId", registered.text("deviceId"),
                    "secret", registered.text("secret")));
            assertThat(verified.json().get("valid").asBoolean()).as(registered.text("deviceId")).isFalse();
        }
        assertThat(api.get("/v1/users/" + user + "/devices").json().get("devices")).isEmpty();
    }

    @Test
    void aCodePastItsTtlThatIsStillStoredIsRefused() {
        String user = newUser();
        sendEmailCode(user);
        String code = codeFromOutbox();
        clock.advance(Duration.ofMinutes(15).plusSeconds(1));

        Answer check = api.post("/v1/codes/check", Map.of("code", code, "userId", user, "codeType", "EMAIL_VERIFICATION"));
        assertThat(check.json().get("valid").asBoolean()).isFalse();
        assertThat(check.text("reason")).isEqualTo("EXPIRED");
        assertThat(verify(user, code).text("reason")).isEqualTo("EXPIRED");
    }

    @Test
    void aPasswordResetLinkCodeVerifiesWithoutTheUser() {
        String user = newUser();
        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700123456"));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.text("format")).isEqualTo("LINK");
        assertThat(sent.text("maskedTarget")).isEqualTo("+44******3456");
        String link = codeFromOutbox();

        Answer someoneElses = api.post("/v1/codes/verify", Map.of("code", link, "userId", newUser()));
        assertThat(someoneElses.json().get("valid").asBoolean()).isFalse();
        assertThat(someoneElses.text("reason")).as("a LINK code named for another user").isEqualTo("NOT_FOUND");

        Answer verified = api.post("/v1/codes/verify", Map.of("code", link));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.text("userId")).isEqualTo(user);
        assertThat(verified.text("codeType")).isEqualTo("PASSWORD_RESET");
    }

    @Test
    void aChunkedBodyOverSixteenKilobytesIsRefusedWhileItIsRead() throws Exception {
        String user = newUser();
        byte[] body = ("{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\",\"deliveryMethod\":\"EMAIL\","
                + "\"deliveryTarget\":\"jane@example.com\",\"userAgent\":\"" + "a".repeat(20_000) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // A body of unknown length goes chunked: no Content-Length tells the service the size up front.
        java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/v1/codes"))
                        .header("Authorization", "Bearer " + API_KEY).header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                                () -> new java.io.ByteArrayInputStream(body)))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body()).contains("BODY_TOO_LARGE");
        assertThat(api.get("/v1/users/" + user + "/audit").json().get("events")).as("nothing written").isEmpty();
    }

    @Test
    void metricsNeverCarryAUserIdATargetOrACode() {
        String user = "metrics-" + newUser();
        sendEmailCode(user);
        String code = codeFromOutbox();
        verify(user, code);
        api.post("/v1/codes", Map.of("userId", user, "codeType", "PHONE_VERIFICATION", "deliveryMethod", "SMS",
                "deliveryTarget", "+447700123987"));

        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();

        assertThat(metrics).contains("verification_codes_sent_total", "verification_codes_verified_total");
        // Label values are quoted: a code would show as "123456" (unquoted digits are measured values).
        assertThat(metrics).doesNotContain(user, emailOf(user), "example.com", "+447700123987", "447700123987",
                "\"" + code + "\"");
    }

    @Test
    void theDeviceFlowFromRegistrationToRevocation() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        String user = newUser();
        Answer registered = api.post("/v1/devices", Map.of("userId", user, "deviceId", "laptop-1", "deviceType", "WEB",
                "deviceName", "Work laptop", "ipAddress", "203.0.113.7", "userAgent", "Firefox"));
        assertThat(registered.status()).isEqualTo(201);
        String secret = registered.text("secret");
        assertThat(secret).hasSize(43);
        assertThat(registered.text("expiresAt")).isEqualTo("2026-12-30T10:00:00.000Z");
        api.post("/v1/devices", Map.of("userId", user, "deviceId", "phone-1", "deviceType", "IOS"));

        clock.advance(Duration.ofDays(1));
        Answer verified = api.post("/v1/devices/verify", Map.of("deviceId", "laptop-1", "secret", secret));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.text("userId")).isEqualTo(user);
        assertThat(verified.text("expiresAt")).isEqualTo("2026-12-31T10:00:00.000Z");

        Answer list = api.get("/v1/users/" + user + "/devices");
        assertThat(list.json().get("devices")).hasSize(2);
        assertThat(list.raw().body()).doesNotContain(secret);

        Answer revoked = api.delete("/v1/users/" + user + "/devices");
        assertThat(revoked.json().get("revoked").asInt()).isEqualTo(2);
        assertThat(api.get("/v1/users/" + user + "/devices").json().get("devices")).isEmpty();
        assertThat(api.post("/v1/devices/verify", Map.of("deviceId", "laptop-1", "secret", secret)).text("reason"))
                .isEqualTo("NOT_FOUND");

        assertThat(auditEventTypes(user)).containsExactly("DEVICES_REVOKED", "DEVICE_VERIFIED", "DEVICE_ADDED",
                "DEVICE_ADDED");
    }

    @Test
    void everyV1CallNeedsAValidApiKeyAndEitherRotationKeyWorks() {
        String user = newUser();
        Answer missing = api.withKey(null).get("/v1/users/" + user + "/audit");
        assertThat(missing.status()).isEqualTo(401);
        assertThat(missing.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(missing.text("code")).isEqualTo("UNAUTHORIZED");
        assertThat(api.withKey("wrong").get("/v1/users/" + user + "/audit").status()).isEqualTo(401);
        assertThat(api.withKey(null).get("/dev/outbox").status()).isEqualTo(401);
        assertThat(api.withKey(NEXT_API_KEY).get("/v1/users/" + user + "/audit").status()).isEqualTo(200);
        assertThat(api.withKey(null).get("/actuator/health/liveness").status()).isEqualTo(200);
    }

    @Test
    void noSpellingOfAPathGetsPastTheApiKey() {
        ApiClient anonymous = api.withKey(null);
        for (String path : List.of("/dev;/outbox", "/%64ev/outbox", "/v1;/users/alice/audit", "/%761/users/alice/devices",
                "/v1/users/alice/audit;x=1", "/V1/users/alice/audit", "/v1/./users/alice/audit", "/dev/../dev/outbox")) {
            String[] answer = anonymous.raw("GET", path, "");
            assertThat(answer[0]).as(path).isIn("401", "400", "404");
            assertThat(answer[1]).as(path).doesNotContain("\"events\"", "\"messages\"");
        }
        String[] delete = anonymous.raw("DELETE", "/%761/users/alice/devices", "");
        assertThat(delete[0]).isEqualTo("401");
    }

    @Test
    void whatTheContainerRefusesIsStillAProblem() {
        String user = newUser();
        String[] badQuery = api.raw("GET", "/v1/users/" + user + "/audit?cursor=%zz", "");
        assertThat(badQuery[0]).isEqualTo("400");
        assertThat(badQuery[1]).contains("application/problem+json").contains("MALFORMED_QUERY");
        String[] publicBadQuery = api.withKey(null).raw("GET", "/actuator/health?x=%zz", "");
        assertThat(publicBadQuery[0]).isEqualTo("400");
        String[] encodedSlash = api.raw("GET", "/v1/users/a%2Fb/devices", "");
        assertThat(encodedSlash[0]).isEqualTo("400");
        assertThat(encodedSlash[1]).contains("application/problem+json").doesNotContain("<html");
        String[] trace = api.raw("TRACE", "/v1/codes", "");
        assertThat(trace[0]).isEqualTo("405");
        assertThat(trace[1]).contains("application/problem+json");
        // A form body is never parsed, so a broken one cannot break a DELETE.
        assertThat(api.send("DELETE", "/v1/users/" + user + "/devices", "application/x-www-form-urlencoded", "a=%zz")
                .status()).isEqualTo(200);
        Answer error = api.get("/error");
        assertThat(error.status()).isEqualTo(404);
        assertThat(error.text("code")).isEqualTo("NOT_FOUND");
    }

    @Test
    void malformedInputIsA4xxNamingTheFieldAndWritesNothing() {
        String user = newUser();
        record Case(String method, String path, String contentType, String body, int status, String code, String field) {
        }
        String big = "{\"userId\":\"" + "a".repeat(17_000) + "\"}";
        List<Case> cases = List.of(
                new Case("POST", "/v1/codes", "application/json", "{broken", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "[1]", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "null", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":{\"a\":1}}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"codeLength\":\"six\"}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\"}", 400, "INVALID_INPUT", "codeType"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"SOMETHING\"}", 400,
                        "INVALID_INPUT", "codeType"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"PIGEON\"}", 400, "INVALID_INPUT", "deliveryMethod"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"SMS\",\"deliveryTarget\":\"+447700123456\"}", 400, "INVALID_INPUT", "deliveryMethod"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"not-an-email\"}", 400, "INVALID_INPUT", "deliveryTarget"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"PHONE_VERIFICATION\","
                        + "\"deliveryMethod\":\"SMS\",\"deliveryTarget\":\"12345\"}", 400, "INVALID_INPUT", "deliveryTarget"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"a#b\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\"}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"ipAddress\":\"nope\"}", 400,
                        "INVALID_INPUT", "ipAddress"),
                new Case("POST", "/v1/codes", "application/json", big, 413, "BODY_TOO_LARGE", null),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":123}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":true}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"codeLength\":6.9}", 400, "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"codeLength\":1e400}", 400, "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"codeLength\":99999999999999999999999}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"userId\":\"other\"}", 400,
                        "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"PASSWORD_RESET\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"codeLength\":8}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/devices", "application/json", "{\"userId\":\"" + user + "\",\"deviceId\":\"d1\","
                        + "\"deviceType\":\"WEB\",\"deviceName\":\"\\ud800x\"}", 400, "INVALID_INPUT", "deviceName"),
                new Case("POST", "/v1/codes", "text/plain", "hello", 415, "UNSUPPORTED_MEDIA_TYPE", null),
                new Case("POST", "/v1/codes/verify", "application/json", "{\"code\":\"123456\"}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes/verify", "application/json", "{\"code\":\"12\",\"userId\":\"" + user
                        + "\",\"codeType\":\"EMAIL_VERIFICATION\"}", 400, "INVALID_INPUT", "code"),
                new Case("POST", "/v1/codes/check", "application/json", "{}", 400, "INVALID_INPUT", "code"),
                new Case("POST", "/v1/devices", "application/json", "{\"userId\":\"" + user + "\",\"deviceId\":\"a b\","
                        + "\"deviceType\":\"WEB\"}", 400, "INVALID_INPUT", "deviceId"),
                new Case("POST", "/v1/devices", "application/json", "{\"userId\":\"" + user + "\",\"deviceId\":\"d1\"}", 400,
                        "INVALID_INPUT", "deviceType"),
                new Case("POST", "/v1/devices/verify", "application/json", "{\"deviceId\":\"d1\",\"secret\":\"short\"}", 400,
                        "INVALID_INPUT", "secret"),
                new Case("GET", "/v1/users/" + user + "/audit?limit=0", null, null, 400, "INVALID_INPUT", "limit"),
                new Case("GET", "/v1/users/" + user + "/audit?limit=x", null, null, 400, "INVALID_INPUT", "limit"),
                new Case("GET", "/v1/users/" + user + "/audit?from=yesterday", null, null, 400, "INVALID_INPUT", "from"),
                new Case("GET", "/v1/users/" + user + "/audit?cursor=%25%25", null, null, 400, "INVALID_INPUT", "cursor"),
                new Case("GET", "/v1/users/a%23b/devices", null, null, 400, "INVALID_INPUT", "userId"),
                new Case("DELETE", "/v1/users/" + user + "/devices/a%23b", null, null, 400, "INVALID_INPUT", "deviceId"),
                new Case("PUT", "/v1/codes", "application/json", "{}", 405, "METHOD_NOT_ALLOWED", null),
                new Case("GET", "/v1/codes/verify", null, null, 405, "METHOD_NOT_ALLOWED", null),
                new Case("GET", "/v1/no-such-thing", null, null, 404, "NOT_FOUND", null));

        for (Case c : cases) {
            Answer answer = api.send(c.method(), c.path(), c.contentType(), c.body());
            assertThat(answer.status()).as("%s %s %s", c.method(), c.path(), c.body() == null ? "" : c.body()
                    .substring(0, Math.min(80, c.body().length()))).isEqualTo(c.status());
            assertThat(answer.header("Content-Type")).as(c.path()).startsWith("application/problem+json");
            assertThat(answer.text("code")).as(c.path() + " " + c.body()).isEqualTo(c.code());
            assertThat(answer.text("field")).as(c.path() + " " + c.body()).isEqualTo(c.field());
        }
        // Nothing above left a trace: no audit entry, no counted request, no code.
        assertThat(auditEventTypes(user)).isEmpty();
        assertThat(api.get("/v1/users/" + user + "/rate-limits").json().get("limits"))
                .allSatisfy(limit -> assertThat(limit.get("count").asLong()).isZero());
    }

    @Test
    void auditHistoryPagesNewestFirst() {
        String user = newUser();
        for (int i = 0; i < 3; i++) {
            sendEmailCode(user);
            clock.advance(Duration.ofSeconds(30));
        }
        // CODE_SENT, then twice CODES_INVALIDATED and CODE_SENT: five events in pages of two.
        List<String> timestamps = new ArrayList<>();
        List<Integer> pageSizes = new ArrayList<>();
        String cursor = null;
        do {
            Answer page = api.get("/v1/users/" + user + "/audit?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(page.status()).isEqualTo(200);
            pageSizes.add(page.json().get("events").size());
            page.json().get("events").forEach(event -> timestamps.add(event.get("timestamp").asString()));
            cursor = page.text("nextCursor");
        } while (cursor != null);

        assertThat(pageSizes).containsExactly(2, 2, 1);
        assertThat(timestamps).isSortedAccordingTo(java.util.Comparator.reverseOrder());
    }

    @Test
    void logsNeverHoldACodeOrADeviceSecret(CapturedOutput output) {
        String user = newUser();
        sendEmailCode(user);
        String code = codeFromOutbox();
        verify(user, code);
        verify(user, code);
        api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET", "deliveryMethod", "EMAIL",
                "deliveryTarget", emailOf(user)));
        String link = codeFromOutbox();
        api.post("/v1/codes/check", Map.of("code", link));
        String secret = missingTransactions().isEmpty()
                ? api.post("/v1/devices", Map.of("userId", user, "deviceId", "d-1", "deviceType", "WEB")).text("secret")
                : "no-secret-issued-on-this-store";
        api.post("/v1/devices/verify", Map.of("deviceId", "d-1", "secret", "A".repeat(43)));

        assertThat(output.getAll()).doesNotContain(code, link, secret, API_KEY);
    }

    @Test
    void operationsEndpointsAnswer() {
        sendEmailCode(newUser());
        assertThat(api.withKey(null).get("/actuator/health/liveness").json().get("status").asString()).isEqualTo("UP");
        Answer readiness = api.withKey(null).get("/actuator/health/readiness");
        assertThat(readiness.json().get("status").asString()).isEqualTo("UP");
        assertThat(readiness.json().get("components").has("store")).isTrue();
        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();
        assertThat(metrics).contains("verification_codes_sent_total", "verification_store_operation_seconds_count");
        Answer openapi = api.withKey(null).get("/v3/api-docs");
        assertThat(openapi.status()).isEqualTo(200);
        assertThat(openapi.json().get("paths").has("/v1/codes")).isTrue();
        assertThat(openapi.json().get("paths").has("/v1/users/{userId}/audit")).isTrue();
        JsonNode send = openapi.json().get("paths").get("/v1/codes").get("post").get("responses");
        assertThat(send.has("202")).isTrue();
        assertThat(send.has("429")).isTrue();
        assertThat(send.has("502")).isTrue();
        assertThat(send.get("400").get("content").has("application/problem+json")).isTrue();
        assertThat(api.withKey(null).get("/swagger-ui/index.html").status()).isEqualTo(200);
    }

    // Messages people understand (SPEC §13)

    static Map<String, String> with(Map<String, String> body, String key, String value) {
        Map<String, String> copy = new java.util.LinkedHashMap<>(body);
        copy.put(key, value);
        return copy;
    }

    /** A mobile number of its own for a test: sends to one number are limited whatever the user. */
    static String mobile(String prefix, int digits) {
        return prefix + String.format("%0" + digits + "d", Math.floorMod(System.nanoTime(), (long) Math.pow(10, digits)));
    }

    @Test
    void aCodeSentWithAContextVerifiesOnlyWithThatContextAndTheContextIsNeverInAnAnswer() {
        String user = newUser();
        String context = "Pay 120.00 EUR to ACME";
        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user), "context", context));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.raw().body()).doesNotContain("ACME", "context");
        JsonNode message = api.get("/dev/outbox").json().get("messages").get(0);
        assertThat(message.get("body").asString()).contains("This code approves: " + context);
        Map<String, String> numeric = Map.of("code", message.get("code").asString(), "userId", user,
                "codeType", "EMAIL_VERIFICATION");

        assertThat(api.post("/v1/codes/check", with(numeric, "context", context)).json().get("valid").asBoolean()).isTrue();
        assertThat(api.post("/v1/codes/verify", numeric).text("reason")).isEqualTo("NOT_FOUND");
        assertThat(api.post("/v1/codes/verify", with(numeric, "context", "Pay 9999.00 EUR to MALLORY")).text("reason"))
                .isEqualTo("NOT_FOUND");
        Answer verified = api.post("/v1/codes/verify", with(numeric, "context", context));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.raw().body()).doesNotContain("ACME", "context");

        // A LINK code is bound the same way.
        clock.advance(Duration.ofSeconds(30));
        api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET", "deliveryMethod", "EMAIL",
                "deliveryTarget", emailOf(user), "context", "Reset the password of account 42"));
        Map<String, String> link = Map.of("code", codeFromOutbox());
        assertThat(api.post("/v1/codes/verify", link).text("reason")).isEqualTo("NOT_FOUND");
        assertThat(api.post("/v1/codes/verify", with(link, "context", "Reset the password of account 43")).text("reason"))
                .isEqualTo("NOT_FOUND");
        assertThat(api.post("/v1/codes/verify", with(link, "context", "Reset the password of account 42"))
                .json().get("valid").asBoolean()).isTrue();

        // The audit log says a context was bound, never what it was.
        String history = api.get("/v1/users/" + user + "/audit?limit=100").raw().body();
        assertThat(history).contains("\"context\":\"bound\"").doesNotContain("ACME", "account 42");
    }

    @Test
    void theMessageIsInTheRequestedLanguageOrTheNumbersAndTheAnswerSaysWhich() {
        String user = newUser();
        Answer austrian = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user), "locale", "de-AT"));
        assertThat(austrian.status()).isEqualTo(202);
        assertThat(austrian.text("locale")).isEqualTo("de");
        JsonNode message = api.get("/dev/outbox").json().get("messages").get(0);
        assertThat(message.get("locale").asString()).isEqualTo("de");
        assertThat(message.get("body").asString()).contains("Geben Sie diesen Code ein", "Der Code ist 15 Minuten gültig.");

        // No locale: an email is in English, an SMS in the language of the number's country.
        Answer email = sendEmailCode(newUser());
        assertThat(email.text("locale")).isEqualTo("en");
        Answer brazil = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", mobile("+55119", 8)));
        assertThat(brazil.status()).isEqualTo(202);
        assertThat(brazil.text("locale")).isEqualTo("pt-BR");
        assertThat(api.get("/dev/outbox").json().get("messages").get(0).get("body").asString())
                .startsWith("Seu codigo de verificacao é ");
        Answer germany = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", mobile("+49151", 8)));
        assertThat(germany.text("locale")).isEqualTo("de");
        assertThat(api.get("/dev/outbox").json().get("messages").get(0).get("body").asString())
                .startsWith("Ihr Bestätigungscode lautet ");
        // A requested locale wins over the number's country; a language without templates is English.
        Answer requested = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", mobile("+49151", 8), "locale", "PT-br"));
        assertThat(requested.text("locale")).isEqualTo("pt-BR");
        Answer swahili = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(newUser()), "locale", "sw-KE"));
        assertThat(swahili.text("locale")).isEqualTo("en");
    }

    @Test
    void aBadLocaleOrContextIsA400NamingItAndWritesNothing() {
        String user = newUser();
        Map<String, String> send = Map.of("userId", user, "codeType", "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL",
                "deliveryTarget", emailOf(user));
        for (String locale : List.of("pt_BR", "not a tag", "x-private", "e", "en-" + "a".repeat(40))) {
            Answer refused = api.post("/v1/codes", with(send, "locale", locale));
            assertThat(refused.status()).as(locale).isEqualTo(400);
            assertThat(refused.text("code")).isEqualTo("INVALID_INPUT");
            assertThat(refused.text("field")).isEqualTo("locale");
        }
        for (String context : List.of("x".repeat(201), "Pay\u0007 now", "line\nbreak")) {
            Answer refused = api.post("/v1/codes", with(send, "context", context));
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.text("field")).isEqualTo("context");
            Answer check = api.post("/v1/codes/check", Map.of("code", "123456", "userId", user,
                    "codeType", "EMAIL_VERIFICATION", "context", context));
            assertThat(check.status()).isEqualTo(400);
            assertThat(check.text("field")).isEqualTo("context");
        }
        assertThat(auditEventTypes(user)).isEmpty();
        assertThat(api.post("/v1/codes", with(send, "context", "x".repeat(200))).status()).isEqualTo(202);
    }

    @Test
    void theOpenApiDocumentDescribesLocaleAndContext() {
        JsonNode schemas = api.withKey(null).get("/v3/api-docs").json().get("components").get("schemas");
        JsonNode send = schemas.get("SendCodeBody").get("properties");
        assertThat(send.get("locale").get("maxLength").asInt()).isEqualTo(35);
        assertThat(send.get("locale").get("description").asString()).contains("BCP 47");
        assertThat(send.get("context").get("maxLength").asInt()).isEqualTo(200);
        assertThat(schemas.get("CodeBody").get("properties").get("context").get("maxLength").asInt()).isEqualTo(200);
        assertThat(schemas.get("SendCodeResponse").get("properties").has("locale")).isTrue();
    }
}

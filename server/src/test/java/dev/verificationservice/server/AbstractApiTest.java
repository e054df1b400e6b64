package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.server.openapi.ApiContract;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.junit.SkipReasonReporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

/**
 * The whole API through a real HTTP port, on one store. Subclasses pick the store. Every test uses its own
 * user ids, so tests share the running service without seeing each other.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY + "," + AbstractApiTest.NEXT_API_KEY,
        "verification.admin-api-keys=" + AbstractApiTest.ADMIN_KEY + "," + AbstractApiTest.NEXT_ADMIN_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY})
@Import(TestClockConfiguration.class)
@ExtendWith({SkipReasonReporter.class, OutputCaptureExtension.class})
abstract class AbstractApiTest {

    static final String API_KEY = "test-api-key-0123456789abcdefghijklmnop";
    static final String NEXT_API_KEY = "next-api-key-0123456789abcdefghijklmnop";
    static final String ADMIN_KEY = "test-admin-key-0123456789abcdefghijklmn";
    static final String NEXT_ADMIN_KEY = "next-admin-key-0123456789abcdefghijklmn";
    static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
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

    /**
     * The user index catches up with every write so far (on DynamoDB it lags; the DynamoDB tests hold it until
     * this is called). Only before a listing or a count that comes from the index: no rule may need it.
     */
    protected void indexCatchesUp() {
    }

    /** Every exchange of the class's tests, checked against the service's OpenAPI document. */
    private static ApiContract contract;

    @BeforeEach
    void connect() throws Exception {
        if (contract == null) {
            contract = ApiContract.of(port);
        }
        api = new ApiClient(port, API_KEY, contract);
        clock.set(TestClockConfiguration.START);
    }

    /**
     * Every answer these tests got from an operation of the OpenAPI document matches the document: its status is
     * documented for the operation, its headers and body match (a generated client or a validating proxy would
     * take it). Requests may break the document: many tests send bad input on purpose.
     */
    @AfterAll
    static void everyAnswerMatchedTheOpenApiDocument() {
        ApiContract checked = contract;
        contract = null;
        if (checked == null) {
            return;
        }
        List<ApiContract.Exchange> documented = checked.exchanges().stream().filter(ApiContract.Exchange::documented)
                .toList();
        System.out.printf("[openapi] %d exchanges, %d with operations of /v3/api-docs (statuses %s), checked%n",
                checked.exchanges().size(), documented.size(), documented.stream()
                        .map(ApiContract.Exchange::status).collect(java.util.stream.Collectors.toCollection(
                                java.util.TreeSet::new)));
        List<String> broken = documented.stream().filter(exchange -> !exchange.answerProblems().isEmpty())
                .map(exchange -> exchange + ": " + exchange.answerProblems() + "\n  " + exchange.answerBody())
                .toList();
        assertThat(broken).as("answers that break /v3/api-docs, of %d exchanges", checked.exchanges().size()).isEmpty();
    }

    static String newUser() {
        return "user-" + USERS.incrementAndGet() + "-" + System.nanoTime();
    }

    /** A mobile number of the user's own (07700 1xxxxx: a valid UK mobile range, outside Ofcom's drama range). */
    static String mobileOf(String userId) {
        return "+4477001" + String.format("%05d", Math.floorMod(userId.hashCode(), 100_000));
    }

    /** Every test user has an address of its own: sends to one address are limited whatever the user. */
    static String emailOf(String userId) {
        return "jane." + userId + "@example.com";
    }

    Answer sendEmailCode(String userId) {
        return sendEmailCodeTo(userId, emailOf(userId));
    }

    Answer sendEmailCodeTo(String userId, String target) {
        return api.post("/v1/codes", Map.of("userId", userId, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", target));
    }

    /** The newest outbox message for this user's target, read as a developer would. */
    String codeFromOutbox() {
        Answer outbox = api.get("/dev/outbox");
        assertThat(outbox.status()).isEqualTo(200);
        return outbox.json().get("messages").get(0).get("code").asString();
    }

    Answer check(String userId, String code) {
        return api.post("/v1/codes/check", Map.of("code", code, "userId", userId, "codeType", "EMAIL_VERIFICATION"));
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
    void theOutboxShowsOneUsersOrOneAddresssMessagesWhenAsked() {
        String first = newUser();
        String second = newUser();
        assertThat(sendEmailCode(first).status()).isEqualTo(202);
        assertThat(sendEmailCode(second).status()).isEqualTo(202);

        JsonNode mine = api.get("/dev/outbox?userId=" + first).json().get("messages");
        JsonNode theirs = api.get("/dev/outbox?to=" + emailOf(second)).json().get("messages");

        assertThat(api.get("/dev/outbox").json().get("messages").get(0).get("userId").asString()).isEqualTo(second);
        assertThat(mine.size()).isEqualTo(1);
        assertThat(mine.get(0).get("userId").asString()).isEqualTo(first);
        assertThat(mine.get(0).get("to").asString()).isEqualTo(emailOf(first));
        assertThat(theirs.size()).isEqualTo(1);
        assertThat(theirs.get(0).get("userId").asString()).isEqualTo(second);
        assertThat(api.get("/dev/outbox?userId=nobody-" + first).json().get("messages").size()).isZero();
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
        // The USED answer above is no wrong guess: the fifth wrong code is the one that locks out.
        assertThat(reasons).containsExactly("NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "TOO_MANY_ATTEMPTS");
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

    // Idempotency-Key (contract §13)

    @Test
    void aRetriedSendWithItsIdempotencyKeyGetsTheFirstAnswerWithoutASecondMessageOrCount() {
        String user = newUser();
        Map<String, String> body = Map.of("userId", user, "codeType", "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL",
                "deliveryTarget", emailOf(user));
        String key = "send-" + user;

        Answer first = api.postIdempotent("/v1/codes", body, key);
        Answer again = api.postIdempotent("/v1/codes", body, key);

        assertThat(first.status()).isEqualTo(202);
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.raw().body()).isEqualTo(first.raw().body());
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(api.get("/dev/outbox").json().get("messages").valueStream()
                .filter(message -> message.get("to").asString().equals(emailOf(user))).count()).isEqualTo(1);
        assertThat(auditEventTypes(user)).containsExactly("CODE_SENT");

        Answer otherBody = api.postIdempotent("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "other." + emailOf(user)), key);
        assertThat(otherBody.status()).isEqualTo(422);
        assertThat(otherBody.text("code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");

        Answer badKey = api.postIdempotent("/v1/codes", body, "has space");
        assertThat(badKey.status()).isEqualTo(400);
        assertThat(badKey.text("field")).isEqualTo("Idempotency-Key");
    }

    @Test
    void twoSimultaneousSendsWithOneKeyGiveOneMessageAndEqualAnswers() throws Exception {
        String user = newUser();
        Map<String, String> body = Map.of("userId", user, "codeType", "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL",
                "deliveryTarget", emailOf(user));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        List<java.util.concurrent.Future<Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(pool.submit(() -> api.postIdempotent("/v1/codes", body, "together-" + user)));
        }
        pool.shutdown();
        List<String> bodies = new ArrayList<>();
        for (java.util.concurrent.Future<Answer> answer : answers) {
            assertThat(answer.get().status()).isEqualTo(202);
            bodies.add(answer.get().raw().body());
        }

        assertThat(bodies).containsOnly(bodies.get(0));
        assertThat(api.get("/dev/outbox").json().get("messages").valueStream()
                .filter(message -> message.get("to").asString().equals(emailOf(user))).count()).isEqualTo(1);
        assertThat(api.get("/v1/users/" + user + "/rate-limits").json().get("limits").valueStream()
                .filter(limit -> limit.get("action").asString().equals("SEND_EMAIL_VERIFICATION"))
                .findFirst().orElseThrow().get("count").asLong()).isEqualTo(1);
    }

    @Test
    void aRetriedDeviceRegistrationGivesTheSameSecretAndOneDevice() {
        String user = newUser();
        Map<String, String> body = Map.of("userId", user, "deviceId", "idem-1", "deviceType", "WEB");

        Answer first = api.postIdempotent("/v1/devices", body, "register-" + user);
        Answer again = api.postIdempotent("/v1/devices", body, "register-" + user);

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.text("secret")).isEqualTo(first.text("secret"));
        indexCatchesUp();
        assertThat(api.get("/v1/users/" + user + "/devices").json().get("devices")).hasSize(1);
        assertThat(api.post("/v1/devices/verify", Map.of("deviceId", "idem-1", "secret", again.text("secret")))
                .json().get("valid").asBoolean()).isTrue();
    }

    @Test
    void anIdempotencyKeyBelongsToTheApiKeyHoweverItsAuthorizationHeaderIsSpelled() {
        String user = newUser();
        String body = ApiClient.JSON.writeValueAsString(Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user)));
        String key = "spelled-" + user;

        RawHttp.Answer first = sendIdempotent("Bearer " + API_KEY, key, body);
        assertThat(first.status()).isEqualTo(202);
        for (String spelling : List.of("bearer " + API_KEY, "Bearer  " + API_KEY, "BEARER " + API_KEY,
                "Bearer " + API_KEY + "  ", "bEaReR \t" + API_KEY)) {
            RawHttp.Answer again = sendIdempotent(spelling, key, body);
            assertThat(again.status()).as(spelling).isEqualTo(202);
            assertThat(again.head()).as(spelling).containsIgnoringCase("Idempotent-Replayed: true");
            assertThat(again.body()).as(spelling).isEqualTo(first.body());
        }
        assertThat(api.get("/dev/outbox").json().get("messages").valueStream()
                .filter(message -> message.get("to").asString().equals(emailOf(user))).count()).isEqualTo(1);

        // Another application key's Idempotency-Key of the same name is its own: the request runs again (and meets
        // the 30-second resend cooldown), it is not the first key's answer replayed.
        RawHttp.Answer otherKey = sendIdempotent("Bearer " + NEXT_API_KEY, key, body);
        assertThat(otherKey.head()).doesNotContainIgnoringCase("Idempotent-Replayed");
        assertThat(otherKey.status()).isEqualTo(429);
    }

    private RawHttp.Answer sendIdempotent(String authorization, String idempotencyKey, String body) {
        return RawHttp.send(port, "POST", "/v1/codes", List.of("Authorization: " + authorization,
                "Content-Type: application/json", "Idempotency-Key: " + idempotencyKey), body);
    }

    @Test
    void aChunkedBodyOverSixteenKilobytesWithAnIdempotencyKeyIs413AndLeavesTheKeyFree() {
        String user = newUser();
        String key = "chunked-" + user;
        byte[] big = ("{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\",\"deliveryMethod\":\"EMAIL\","
                + "\"deliveryTarget\":\"" + emailOf(user) + "\",\"userAgent\":\"" + "a".repeat(20_000) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);

        RawHttp.Answer refused = RawHttp.sendChunked(port, "POST", "/v1/codes", List.of("Authorization: Bearer " + API_KEY,
                "Content-Type: application/json", "Idempotency-Key: " + key), big, 1024);

        assertThat(refused.status()).isEqualTo(413);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.body()).contains("\"code\":\"BODY_TOO_LARGE\"");
        assertThat(auditEventTypes(user)).as("nothing written").isEmpty();
        Answer retried = api.postIdempotent("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user)), key);
        assertThat(retried.status()).as("the key was not claimed by the refused request").isEqualTo(202);
    }

    // Abuse controls (contract §10)

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

        // The blocked address stays blocked when the caller writes it as IPv6, in any form that carries it.
        int last = Integer.parseInt(ip.substring(ip.lastIndexOf('.') + 1));
        String low = String.format("64%02x", last);                    // 100.<last>
        String teredoLow = String.format("9b%02x", 255 - last);         // inverted
        for (String form : List.of("::ffff:" + ip, "::" + ip, "64:ff9b::" + ip, "2002:c633:" + low + ":1::1",
                "2001:0:4136:e378:8000:63bf:39cc:" + teredoLow)) {
            String user = newUser();
            Answer again = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                    "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com", "ipAddress", form));
            assertThat(again.status()).as(form).isEqualTo(429);
            assertThat(again.text("action")).as(form).isEqualTo("SEND_FROM_IP");
        }
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

        indexCatchesUp();
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
        Answer registered = api.post("/v1/devices", Map.of("userId", user, "deviceId", "d-1", "deviceType", "WEB"));
        assertThat(registered.status()).isEqualTo(201);
        String secret = registered.text("secret");
        assertThat(secret).hasSize(43);
        api.post("/v1/devices/verify", Map.of("deviceId", "d-1", "secret", secret));
        api.post("/v1/devices/verify", Map.of("deviceId", "d-1", "secret", "A".repeat(43)));

        assertThat(output.getAll()).doesNotContain(code, link, secret, API_KEY);
    }

    @Test
    void operationsEndpointsAnswer() {
        sendEmailCode(newUser());
        assertThat(api.withKey(null).get("/actuator/health/liveness").json().get("status").asString()).isEqualTo("UP");
        Answer readiness = api.withKey(null).get("/actuator/health/readiness");
        assertThat(readiness.json().get("status").asString()).isEqualTo("UP");
        assertThat(readiness.json().get("components").has("verificationStore")).isTrue();
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
        // Swagger UI renders descriptions as HTML: a "<key>" in them was swallowed ("Bearer '").
        assertThat(openapi.json().get("info").get("description").asString())
                .contains("Authorization: Bearer API_KEY").doesNotContain("<");
    }

    // ---------------------------------------------------------------- the operator API (the contract, §11)

    ApiClient admin() {
        return api.withKey(ADMIN_KEY);
    }

    /** The key id the audit log must show for an admin key, computed here independently of the service. */
    static String adminKeyId(String key) throws Exception {
        byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return "adm-" + java.util.HexFormat.of().formatHex(hash).substring(0, 12);
    }

    List<JsonNode> auditEvents(String userId, String eventType) {
        List<JsonNode> events = new ArrayList<>();
        api.get("/v1/users/" + userId + "/audit?limit=100").json().get("events").forEach(event -> {
            if (event.get("eventType").asString().equals(eventType)) {
                events.add(event);
            }
        });
        return events;
    }

    private static void assertForbidden(Answer answer, String detail) {
        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.text("code")).isEqualTo("FORBIDDEN");
        assertThat(answer.text("detail")).contains(detail);
    }

    @Test
    void eachKeyOpensOnlyItsOwnApi() {
        String user = newUser();
        String overview = "/v1/admin/users/" + user;
        // An application key never reaches the operator API.
        assertForbidden(api.get(overview), "needs an admin key");
        assertForbidden(api.delete(overview + "/codes"), "needs an admin key");
        assertForbidden(api.delete(overview + "/rate-limits/VERIFY_EMAIL_VERIFICATION"), "needs an admin key");
        assertForbidden(api.withKey(NEXT_API_KEY).get(overview), "needs an admin key");
        // An admin key never replaces an application key: not on /v1, not on the outbox.
        ApiClient admin = admin();
        assertForbidden(admin.get("/v1/users/" + user + "/audit"), "This is an admin key");
        assertForbidden(admin.get("/v1/users/" + user + "/rate-limits"), "This is an admin key");
        assertForbidden(admin.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jane@example.com")), "This is an admin key");
        assertForbidden(admin.post("/v1/codes/verify", Map.of("code", "123456", "userId", user,
                "codeType", "EMAIL_VERIFICATION")), "This is an admin key");
        assertForbidden(admin.delete("/v1/users/" + user + "/devices"), "This is an admin key");
        assertForbidden(admin.get("/dev/outbox"), "This is an admin key");
        assertForbidden(api.withKey(NEXT_ADMIN_KEY).get("/dev/outbox"), "This is an admin key");
        // A missing or unknown key is a 401, on the operator API as everywhere.
        for (String key : new String[] {null, "wrong", ADMIN_KEY + "x", ADMIN_KEY.substring(1)}) {
            Answer answer = api.withKey(key).get(overview);
            assertThat(answer.status()).as(String.valueOf(key)).isEqualTo(401);
            assertThat(answer.text("code")).isEqualTo("UNAUTHORIZED");
            assertThat(answer.header("WWW-Authenticate")).startsWith("Bearer");
        }
        // The path the container decodes decides: no spelling takes an application key into the operator API.
        for (String path : List.of("/v1/%61dmin/users/" + user, "/v1;x=1/admin/users/" + user, "/v1/admin;x=1/users/" + user,
                "/%761/admin/users/" + user)) {
            assertThat(api.raw("GET", path, "")[0]).as(path).isEqualTo("403");
            assertThat(api.withKey(null).raw("GET", path, "")[0]).as(path).isEqualTo("401");
        }
        assertThat(api.raw("GET", "/V1/admin/users/" + user, "")[0]).as("another path, not the operator API").isEqualTo("404");
        assertThat(admin.raw("GET", "/v1/%61dmin/users/" + user, "")[0]).isEqualTo("200");
        // Both admin keys work (rotation), and public paths need no key of either kind.
        assertThat(admin.get(overview).status()).isEqualTo(200);
        assertThat(api.withKey(NEXT_ADMIN_KEY).get(overview).status()).isEqualTo(200);
        assertThat(admin.get("/actuator/health/liveness").status()).isEqualTo(200);
        // Nothing above did anything.
        assertThat(auditEventTypes(user)).isEmpty();
    }

    @Test
    void theOperatorOverviewShowsDevicesLiveCodesLimitsAndAuditWithoutSecrets() {
        String user = newUser();
        String secret = missingTransactions().isEmpty()
                ? api.post("/v1/devices", Map.of("userId", user, "deviceId", "laptop-1", "deviceType", "WEB",
                        "deviceName", "Work laptop")).text("secret")
                : null;
        sendEmailCode(user);
        String code = codeFromOutbox();
        String wrong = code.equals("000000") ? "111111" : "000000";
        // A failed check counts as a failed verification (and needs no transaction, so it runs on dynalite too).
        Answer failed = api.post("/v1/codes/check", Map.of("code", wrong, "userId", user, "codeType", "EMAIL_VERIFICATION"));
        assertThat(failed.text("reason")).isEqualTo("NOT_FOUND");
        clock.advance(Duration.ofMinutes(1));
        indexCatchesUp();

        Answer overview = admin().get("/v1/admin/users/" + user);

        assertThat(overview.status()).isEqualTo(200);
        assertThat(overview.header("Cache-Control")).isEqualTo("no-store");
        JsonNode json = overview.json();
        assertThat(json.get("userId").asString()).isEqualTo(user);
        assertThat(json.get("liveCodes")).hasSize(1);
        JsonNode live = json.get("liveCodes").get(0);
        List<String> liveFields = new ArrayList<>(live.propertyNames());
        assertThat(liveFields).containsExactly("codeType", "format", "deliveryMethod", "maskedTarget", "createdAt",
                "expiresAt");
        assertThat(live.get("codeType").asString()).isEqualTo("EMAIL_VERIFICATION");
        assertThat(live.get("format").asString()).isEqualTo("NUMERIC");
        assertThat(live.get("deliveryMethod").asString()).isEqualTo("EMAIL");
        assertThat(live.get("maskedTarget").asString()).isEqualTo("j***@example.com");
        assertThat(live.get("createdAt").asString()).isEqualTo("2026-11-30T10:00:00.000Z");
        assertThat(live.get("expiresAt").asString()).isEqualTo("2026-11-30T10:15:00.000Z");
        assertThat(overview.raw().body()).doesNotContain(code, "jane@example.com", "digest", "CODE#");
        assertThat(json.get("rateLimits")).anySatisfy(limit -> {
            assertThat(limit.get("action").asString()).isEqualTo("SEND_EMAIL_VERIFICATION");
            assertThat(limit.get("count").asLong()).isEqualTo(1);
            assertThat(limit.get("limit").asInt()).isEqualTo(5);
            assertThat(limit.get("windowStart").asString()).isEqualTo("2026-11-30T10:00:00.000Z");
            assertThat(limit.get("resetsAt").asString()).isEqualTo("2026-11-30T10:15:00.000Z");
        });
        assertThat(json.get("rateLimits")).anySatisfy(limit -> {
            assertThat(limit.get("action").asString()).isEqualTo("VERIFY_EMAIL_VERIFICATION");
            assertThat(limit.get("count").asLong()).isEqualTo(1);
        });
        // The audit events are those of GET /v1/users/{userId}/audit, in the same shape, newest first.
        assertThat(json.get("auditEvents")).isEqualTo(api.get("/v1/users/" + user + "/audit?limit=20").json().get("events"));
        assertThat(json.get("auditEvents").get(0).get("eventType").asString()).isEqualTo("CODE_VERIFICATION_FAILED");
        if (secret != null) {
            assertThat(json.get("devices")).hasSize(1);
            assertThat(json.get("devices").get(0).get("deviceId").asString()).isEqualTo("laptop-1");
            assertThat(json.get("devices").get(0).get("deviceName").asString()).isEqualTo("Work laptop");
            assertThat(overview.raw().body()).doesNotContain(secret);
        } else {
            assertThat(json.get("devices")).isEmpty();
        }
        // A user nobody has heard of has an empty overview; a user id that is not one names its field.
        JsonNode nobody = admin().get("/v1/admin/users/" + newUser()).json();
        assertThat(nobody.get("devices")).isEmpty();
        assertThat(nobody.get("liveCodes")).isEmpty();
        assertThat(nobody.get("auditEvents")).isEmpty();
        Answer invalid = admin().get("/v1/admin/users/a%23b");
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.text("field")).isEqualTo("userId");
    }

    @Test
    void anOperatorLiftsAGuessingLockOutAndTheAuditNamesTheKeyIdNeverTheKey(CapturedOutput output) throws Exception {
        assumeTrue(missingTransactions().isEmpty(), () -> "verifying a code is a transaction, which this store's "
                + "engine lacks (" + missingTransactions().get() + "); lifting a send limit is tested here instead");
        String user = newUser();
        sendEmailCode(user);
        String code = codeFromOutbox();
        String wrong = code.equals("000000") ? "111111" : "000000";
        List<String> reasons = new ArrayList<>();
        for (int guess = 0; guess < 5; guess++) {
            reasons.add(verify(user, wrong).text("reason"));
        }
        assertThat(reasons).containsExactly("NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "TOO_MANY_ATTEMPTS");
        assertThat(verify(user, code).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");
        assertThat(sendEmailCode(user).status()).as("no new code while locked out").isEqualTo(429);

        Answer lifted = admin().delete("/v1/admin/users/" + user + "/rate-limits/VERIFY_EMAIL_VERIFICATION");

        assertThat(lifted.status()).isEqualTo(200);
        assertThat(lifted.header("Cache-Control")).isEqualTo("no-store");
        assertThat(lifted.text("action")).isEqualTo("VERIFY_EMAIL_VERIFICATION");
        assertThat(lifted.json().get("windowsCleared").asInt()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(31));
        assertThat(sendEmailCode(user).status()).isEqualTo(202);
        Answer verified = verify(user, codeFromOutbox());
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertAuditedReset(user, "VERIFY_EMAIL_VERIFICATION", output);
    }

    /** One RATE_LIMIT_RESET entry for the action, with the operator's key id and never the key. */
    private void assertAuditedReset(String user, String action, CapturedOutput output) throws Exception {
        List<JsonNode> resets = auditEvents(user, "RATE_LIMIT_RESET");
        assertThat(resets).hasSize(1);
        JsonNode details = resets.get(0).get("details");
        assertThat(details.get("operatorKeyId").asString()).isEqualTo(adminKeyId(ADMIN_KEY)).startsWith("adm-").hasSize(16);
        assertThat(details.get("action").asString()).isEqualTo(action);
        assertThat(details.get("windowsCleared").asString()).isEqualTo("1");
        assertThat(resets.get(0).get("success").asBoolean()).isTrue();
        String history = api.get("/v1/users/" + user + "/audit?limit=100").raw().body();
        assertThat(history).doesNotContain(ADMIN_KEY);
        assertThat(output.getAll()).doesNotContain(ADMIN_KEY, NEXT_ADMIN_KEY);
    }

    @Test
    void anOperatorLiftsASendLimitAndEachAdminKeyHasItsOwnId(CapturedOutput output) throws Exception {
        String user = newUser();
        // Another inbox each time, some time apart: only the user's own send limit is reached.
        for (int request = 0; request < 5; request++) {
            assertThat(sendEmailCodeTo(user, "jane" + request + "@example.com").status()).isEqualTo(202);
            clock.advance(Duration.ofSeconds(31));
        }
        Answer refused = sendEmailCodeTo(user, "jane5@example.com");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.text("action")).isEqualTo("SEND_EMAIL_VERIFICATION");

        Answer lifted = admin().delete("/v1/admin/users/" + user + "/rate-limits/SEND_EMAIL_VERIFICATION");

        assertThat(lifted.status()).isEqualTo(200);
        assertThat(lifted.text("action")).isEqualTo("SEND_EMAIL_VERIFICATION");
        assertThat(lifted.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertThat(sendEmailCodeTo(user, "jane6@example.com").status()).isEqualTo(202);
        assertThat(api.get("/v1/users/" + user + "/rate-limits").json().get("limits")).anySatisfy(limit -> {
            assertThat(limit.get("action").asString()).isEqualTo("SEND_EMAIL_VERIFICATION");
            assertThat(limit.get("count").asLong()).isEqualTo(1);
        });
        assertAuditedReset(user, "SEND_EMAIL_VERIFICATION", output);

        // The other admin key is another operator, with another id.
        Answer again = admin().withKey(NEXT_ADMIN_KEY).delete("/v1/admin/users/" + user
                + "/rate-limits/SEND_EMAIL_VERIFICATION");
        assertThat(again.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertThat(auditEvents(user, "RATE_LIMIT_RESET").get(0).get("details").get("operatorKeyId").asString())
                .isEqualTo(adminKeyId(NEXT_ADMIN_KEY)).isNotEqualTo(adminKeyId(ADMIN_KEY));

        // Only the user's own limits can be lifted, and bad input names its field and changes nothing.
        Answer unknown = admin().delete("/v1/admin/users/" + user + "/rate-limits/NOT_AN_ACTION");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.text("code")).isEqualTo("INVALID_INPUT");
        assertThat(unknown.text("field")).isEqualTo("action");
        Answer badUser = admin().delete("/v1/admin/users/a%23b/rate-limits/VERIFY_EMAIL_VERIFICATION");
        assertThat(badUser.status()).isEqualTo(400);
        assertThat(badUser.text("field")).isEqualTo("userId");
        assertThat(auditEvents(user, "RATE_LIMIT_RESET")).hasSize(2);
    }

    @Test
    void anOperatorInvalidatesEveryLiveCodeOfAUser() throws Exception {
        String user = newUser();
        sendEmailCode(user);
        String code = codeFromOutbox();
        assertThat(api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET", "deliveryMethod", "SMS",
                "deliveryTarget", mobileOf(user))).status()).isEqualTo(202);
        String link = codeFromOutbox();
        assertThat(check(user, code).json().get("valid").asBoolean()).isTrue();
        assertThat(api.post("/v1/codes/check", Map.of("code", link)).json().get("valid").asBoolean()).isTrue();

        Answer invalidated = admin().delete("/v1/admin/users/" + user + "/codes");

        assertThat(invalidated.status()).isEqualTo(200);
        assertThat(invalidated.header("Cache-Control")).isEqualTo("no-store");
        assertThat(invalidated.json().get("invalidated").asInt()).isEqualTo(2);
        assertThat(check(user, code).text("reason")).isEqualTo("NOT_FOUND");
        assertThat(api.post("/v1/codes/check", Map.of("code", link)).text("reason")).isEqualTo("NOT_FOUND");
        if (missingTransactions().isEmpty()) {
            assertThat(verify(user, code).text("reason")).isEqualTo("NOT_FOUND");
            assertThat(api.post("/v1/codes/verify", Map.of("code", link)).text("reason")).isEqualTo("NOT_FOUND");
        }
        assertThat(admin().get("/v1/admin/users/" + user).json().get("liveCodes")).isEmpty();

        List<JsonNode> entries = auditEvents(user, "CODES_INVALIDATED");
        assertThat(entries).hasSize(2);
        assertThat(entries).allSatisfy(entry -> {
            assertThat(entry.get("details").get("operatorKeyId").asString()).isEqualTo(adminKeyId(ADMIN_KEY));
            assertThat(entry.get("details").get("reason").asString()).isEqualTo("OPERATOR");
        });
        assertThat(entries).extracting(entry -> entry.get("details").get("codeType").asString())
                .containsExactlyInAnyOrder("EMAIL_VERIFICATION", "PASSWORD_RESET");
        assertThat(api.get("/v1/users/" + user + "/audit?limit=100").raw().body()).doesNotContain(ADMIN_KEY);

        // Nothing left to invalidate: 0, and no new audit entry.
        assertThat(admin().delete("/v1/admin/users/" + user + "/codes").json().get("invalidated").asInt()).isZero();
        assertThat(auditEvents(user, "CODES_INVALIDATED")).hasSize(2);
    }

    // ---------------------------------------------------------------- hardening

    @Test
    void noAnswerIsEverStoredByACache() {
        String user = newUser();
        List<Answer> answers = new ArrayList<>();
        answers.add(sendEmailCode(user));
        answers.add(api.get("/dev/outbox"));
        if (missingTransactions().isEmpty()) {
            Answer registered = api.post("/v1/devices", Map.of("userId", user, "deviceId", "d-1", "deviceType", "WEB"));
            assertThat(registered.status()).isEqualTo(201);
            answers.add(registered);
        }
        answers.add(admin().get("/v1/admin/users/" + user));
        answers.add(api.get("/v1/users/" + user + "/audit"));
        answers.add(api.withKey(null).get("/v1/users/" + user + "/audit"));
        answers.add(admin().get("/dev/outbox"));
        answers.add(api.post("/v1/codes", "{broken"));
        answers.add(api.get("/v1/no-such-thing"));
        answers.add(api.withKey(null).get("/actuator/health/readiness"));
        for (Answer answer : answers) {
            assertThat(answer.header("Cache-Control")).as(answer.raw().uri() + " " + answer.status()).isEqualTo("no-store");
            assertThat(answer.header("Pragma")).as(answer.raw().uri().toString()).isEqualTo("no-cache");
        }
        // Also what the container refuses before any filter runs.
        String[] encodedSlash = api.raw("GET", "/v1/users/a%2Fb/devices", "");
        assertThat(encodedSlash[0]).isEqualTo("400");
        assertThat(encodedSlash[1].toLowerCase(java.util.Locale.ROOT)).contains("cache-control: no-store");
    }

    @Test
    void theKeyIsCheckedBeforeAnyBodyIsRead() {
        String form = "application/x-www-form-urlencoded";
        String oversized = "a=" + "b".repeat(20_000);
        ApiClient anonymous = api.withKey(null);
        for (String path : List.of("/v1/codes", "/v1/devices", "/v1/admin/users/" + newUser() + "/codes")) {
            String method = path.startsWith("/v1/admin") ? "DELETE" : "POST";
            for (String body : List.of("a=%zz", oversized)) {
                Answer answer = anonymous.send(method, path, form, body);
                assertThat(answer.status()).as("%s %s without a key, body of %d", method, path, body.length())
                        .isEqualTo(401);
                assertThat(answer.text("code")).isEqualTo("UNAUTHORIZED");
                assertThat(api.withKey("wrong").send(method, path, form, body).status()).isEqualTo(401);
            }
        }
        // With a key, the normal refusals: the wrong media type, or a body over the limit.
        Answer broken = api.send("POST", "/v1/codes", form, "a=%zz");
        assertThat(broken.status()).isEqualTo(415);
        assertThat(broken.text("code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
        Answer tooLarge = api.send("POST", "/v1/codes", form, oversized);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.text("code")).isEqualTo("BODY_TOO_LARGE");
    }

    @Test
    void theApiDocumentDescribesTheOperatorApiWithItsOwnKey() {
        JsonNode document = api.withKey(null).get("/v3/api-docs").json();
        JsonNode paths = document.get("paths");
        assertThat(paths.has("/v1/admin/users/{userId}")).isTrue();
        assertThat(paths.get("/v1/admin/users/{userId}/rate-limits/{action}").has("delete")).isTrue();
        assertThat(paths.get("/v1/admin/users/{userId}/codes").has("delete")).isTrue();
        JsonNode overview = paths.get("/v1/admin/users/{userId}").get("get");
        assertThat(overview.get("security").get(0).has("adminKey")).isTrue();
        assertThat(overview.get("responses").has("403")).isTrue();
        assertThat(document.get("components").get("securitySchemes").get("adminKey").get("scheme").asString())
                .isEqualTo("bearer");
        assertThat(paths.get("/v1/codes").get("post").has("security")).as("the application API keeps the default key")
                .isFalse();
    }

    // Messages people understand (contract §13)

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
        for (String context : List.of("x".repeat(201), "Pay\u0007 now", "line\nbreak", "Pay \u202e0.01 EUR",
                "Pay\u200b 120.00 EUR", "\ufeffPay 120.00 EUR", "Pay \u2067120.00\u2069 EUR", "Pay \u061c120 EUR")) {
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

    /**
     * A bidi override makes text read otherwise than it is: refused (400 naming the field, nothing written) in a
     * device name a person reads, kept as a visible escape in the user agent that is only recorded.
     */
    @Test
    void aBidiOverrideIsRefusedInADeviceNameAndShownAsAnEscapeInTheRecordedUserAgent() {
        String user = newUser();
        Answer refused = api.post("/v1/devices", Map.of("userId", user, "deviceId", "d1", "deviceType", "WEB",
                "deviceName", "Laptop \u202egnp.exe"));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.text("field")).isEqualTo("deviceName");
        assertThat(refused.text("detail")).contains("U+202E");
        assertThat(auditEventTypes(user)).isEmpty();

        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user), "userAgent", "Mozilla/5.0 \u202eevil"));
        assertThat(sent.status()).isEqualTo(202);
        String history = api.get("/v1/users/" + user + "/audit?limit=100").raw().body();
        assertThat(history).contains("Mozilla/5.0 <U+202E>evil").doesNotContain("\u202e", "\\u202e");
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

package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.totp.AuthenticatorApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import tools.jackson.databind.JsonNode;

/**
 * The API end to end on one store, run on both (EmbeddedApiTest, DynamoDbApiTest): what the store takes part
 * in beyond a rule of the contract suite. The code and device flows, Idempotency-Key (whose answers the store
 * keeps), the operator's overview of every repository, and what the store's own logs, metrics and readiness show.
 * The rules themselves are proven by the contract suite on both stores, and their HTTP answers once, on the
 * embedded store (HttpMappingTest, OperatorApiTest, HttpRequestsTest): see docs/testing.md.
 */
abstract class AbstractApiTest extends ApiTestSupport {

    /** The lock-out and its 429 are the contract suite's and HttpMappingTest's; here the flow on each store. */
    @Test
    void theCodeFlowFromRequestToUse() {
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

        assertThat(auditEventTypes(user)).containsExactly("CODE_VERIFICATION_FAILED", "CODE_VERIFIED", "CODE_SENT");
    }

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

    /**
     * An authenticator app (written from the RFCs in the tests) enrols by the QR code, confirms and verifies on this
     * store; each step once. Fifty simultaneous verifications are TotpApiTest's over HTTP (the embedded store) and
     * the contract suite's on both stores: on dynalite fifty at once outlast the store's timeouts on a busy machine.
     */
    @Test
    void anAuthenticatorAppEnrolsByTheQrCodeConfirmsAndVerifiesEachStepOnce() {
        String user = newUser();
        Answer enrolled = api.post("/v1/users/" + user + "/totp", Map.of("label", "phone"));
        assertThat(enrolled.status()).isEqualTo(201);
        AuthenticatorApp app = AuthenticatorApp.scan(enrolled.text("qrCode"));
        Answer confirmed = api.post("/v1/users/" + user + "/totp/" + enrolled.text("factorId") + "/confirm",
                Map.of("code", app.codeAt(clock.instant())));
        assertThat(confirmed.json().get("confirmed").asBoolean()).isTrue();
        clock.advance(Duration.ofSeconds(30));
        Map<String, String> code = Map.of("code", app.codeAt(clock.instant()));

        Answer valid = api.post("/v1/users/" + user + "/totp/verify", code);
        assertThat(valid.json().get("valid").asBoolean()).isTrue();
        assertThat(valid.text("factorId")).isEqualTo(enrolled.text("factorId"));
        assertThat(api.post("/v1/users/" + user + "/totp/verify", code).text("reason")).isEqualTo("REPLAYED");
        indexCatchesUp();
        assertThat(api.get("/v1/users/" + user + "/totp").json().get("factors").get(0).get("lastUsedAt").asString())
                .isEqualTo("2026-11-30T10:00:30.000Z");
    }

    /**
     * A TOTP secret and recovery codes are shown once, Idempotency-Key or not: the key is no secret to proxies and
     * clients, and a kept answer would outlive what it was for (a factor confirmed or removed, codes replaced).
     * A replay is a 409 that says so, and runs nothing again; an answer without a secret is replayed as before.
     */
    @Test
    void aReplayWithTheIdempotencyKeyNeverShowsASecretOrRecoveryCodesAgain() {
        String user = newUser();
        String enrolPath = "/v1/users/" + user + "/totp";
        Answer enrolled = api.postIdempotent(enrolPath, Map.of("label", "phone"), "enrol-" + user);
        assertThat(enrolled.status()).isEqualTo(201);
        String secret = enrolled.text("secret");
        assertVoidReplay(api.postIdempotent(enrolPath, Map.of("label", "phone"), "enrol-" + user), secret);
        indexCatchesUp();
        assertThat(api.get(enrolPath).json().get("factors")).as("no second factor").hasSize(1);

        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        String confirmPath = enrolPath + "/" + enrolled.text("factorId") + "/confirm";
        String right = app.codeAt(clock.instant());
        Map<String, String> wrong = Map.of("code", right.equals("000000") ? "111111" : "000000");
        Answer refused = api.postIdempotent(confirmPath, wrong, "wrong-" + user);
        assertThat(refused.json().get("confirmed").asBoolean()).isFalse();
        Answer refusedAgain = api.postIdempotent(confirmPath, wrong, "wrong-" + user);
        assertThat(refusedAgain.header("Idempotent-Replayed")).as("no secret in it: replayed").isEqualTo("true");
        assertThat(refusedAgain.raw().body()).isEqualTo(refused.raw().body());

        Answer confirmed = api.postIdempotent(confirmPath, Map.of("code", right), "confirm-" + user);
        assertThat(confirmed.json().get("recoveryCodes")).hasSize(10);
        String firstCode = confirmed.json().get("recoveryCodes").get(0).asString();
        assertVoidReplay(api.postIdempotent(confirmPath, Map.of("code", right), "confirm-" + user), firstCode);
        assertVoidReplay(api.postIdempotent(enrolPath, Map.of("label", "phone"), "enrol-" + user), secret);

        String issuePath = "/v1/users/" + user + "/recovery-codes";
        Answer issued = api.postIdempotent(issuePath, Map.of(), "issue-" + user);
        assertThat(issued.status()).isEqualTo(201);
        String issuedCode = issued.json().get("recoveryCodes").get(0).asString();
        assertThat(api.post(issuePath + "/verify", Map.of("code", issuedCode)).json().get("valid").asBoolean())
                .isTrue();
        assertVoidReplay(api.postIdempotent(issuePath, Map.of(), "issue-" + user), issuedCode);
        Answer stillGood = api.post(issuePath + "/verify",
                Map.of("code", issued.json().get("recoveryCodes").get(1).asString()));
        assertThat(stillGood.json().get("valid").asBoolean()).as("the replay issued no new set").isTrue();
        assertThat(stillGood.json().get("remaining").asInt()).isEqualTo(8);

        assertThat(api.delete(enrolPath + "/" + enrolled.text("factorId")).json().get("removed").asInt()).isEqualTo(1);
        assertVoidReplay(api.postIdempotent(enrolPath, Map.of("label", "phone"), "enrol-" + user), secret);
        indexCatchesUp();
        assertThat(api.get(enrolPath).json().get("factors")).as("the replay enrolled nothing").isEmpty();
    }

    private static void assertVoidReplay(Answer replay, String secret) {
        assertThat(replay.status()).isEqualTo(409);
        assertThat(replay.text("code")).isEqualTo("IDEMPOTENT_ANSWER_VOID");
        assertThat(replay.text("detail")).contains("shown once", "without this Idempotency-Key");
        assertThat(replay.header("Idempotent-Replayed")).isNull();
        assertThat(replay.raw().body()).doesNotContain(secret);
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
    void guessesAfterALockOutAreRefusedFromMemoryUnauditedAndCounted() {
        String user = newUser();
        sendEmailCode(user);
        String wrong = codeFromOutbox().equals("000000") ? "111111" : "000000";
        Map<String, String> guess = Map.of("code", wrong, "userId", user, "codeType", "EMAIL_VERIFICATION");
        // Five wrong guesses lock the user out; the sixth is refused by the store and audited, and refused again a
        // second later the lock-out is remembered.
        for (int i = 0; i < 6; i++) {
            api.post("/v1/codes/verify", guess);
        }
        clock.advance(Duration.ofSeconds(1));
        api.post("/v1/codes/verify", guess);
        long audited = auditEntries(user).stream().filter(entry -> entry.toString().contains("TOO_MANY_ATTEMPTS")).count();

        for (int i = 0; i < 10; i++) {
            assertThat(api.post("/v1/codes/verify", guess).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");
        }

        assertThat(auditEntries(user).stream().filter(entry -> entry.toString().contains("TOO_MANY_ATTEMPTS")).count())
                .isEqualTo(audited);
        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();
        assertThat(metrics).containsPattern("verification_attempts_remembered_refusals_total(\\{[^}]*})? [1-9]");
    }

    private List<JsonNode> auditEntries(String user) {
        List<JsonNode> entries = new ArrayList<>();
        api.get("/v1/users/" + user + "/audit?limit=100").json().get("events").forEach(entries::add);
        return entries;
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
}

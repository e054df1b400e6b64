package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.totp.AuthenticatorApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import tools.jackson.databind.JsonNode;

/**
 * Authenticator apps and recovery codes over HTTP (contract §14), on the embedded store: the answers, the problems,
 * what is shown once and never again, Idempotency-Key, the operator's removal. The app is {@link AuthenticatorApp},
 * written from the RFCs in the tests; the rules (replay, lock-out, rotation) are the core's and the contract suite's.
 * The flow runs on both stores in {@link AbstractApiTest}.
 */
class TotpApiTest extends EmbeddedOnlyApiTest {

    @Test
    void anAppEnrolledByTheOtpauthUriConfirmsAndVerifiesEachStepOnce() {
        String user = newUser();
        Answer enrolled = enrol(user, Map.of("label", "ada@example.com", "issuer", "Example Bank"));
        assertThat(enrolled.status()).isEqualTo(201);
        assertThat(enrolled.text("factorId")).matches("[0-9a-f]{24}");
        assertThat(enrolled.text("secret")).matches("[A-Z2-7]{32}");
        assertThat(enrolled.text("otpauthUri")).startsWith("otpauth://totp/Example%20Bank:ada%40example.com?");
        assertThat(enrolled.text("expiresAt")).isEqualTo("2026-11-30T10:15:00.000Z");
        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        assertThat(app.issuer()).isEqualTo("Example Bank");
        assertThat(app.label()).isEqualTo("ada@example.com");
        String factorId = enrolled.text("factorId");

        // Pending: it verifies nothing.
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).text("reason")).isEqualTo("NO_FACTOR");
        Answer confirmed = confirm(user, factorId, app.codeAt(clock.instant()));
        assertThat(confirmed.status()).isEqualTo(200);
        assertThat(confirmed.json().get("confirmed").asBoolean()).isTrue();
        assertThat(confirmed.json().get("recoveryCodes")).hasSize(10);
        // The confirming code's step is accepted: the same code cannot verify afterwards.
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).text("reason")).isEqualTo("REPLAYED");

        clock.advance(Duration.ofSeconds(30));
        Answer valid = verifyTotp(user, app.codeAt(clock.instant()));
        assertThat(valid.json().get("valid").asBoolean()).isTrue();
        assertThat(valid.text("factorId")).isEqualTo(factorId);
        Answer again = verifyTotp(user, app.codeAt(clock.instant()));
        assertThat(again.json().get("valid").asBoolean()).isFalse();
        assertThat(again.text("reason")).isEqualTo("REPLAYED");
        assertThat(verifyTotp(user, wrongFor(app.codeAt(clock.instant()))).text("reason")).isEqualTo("INVALID_CODE");
        assertThat(confirm(user, factorId, app.codeAt(clock.instant())).text("reason")).isEqualTo("ALREADY_CONFIRMED");

        assertThat(auditEventTypes(user)).containsExactly("TOTP_VERIFICATION_FAILED", "TOTP_VERIFICATION_FAILED",
                "TOTP_VERIFICATION_FAILED", "TOTP_VERIFIED", "TOTP_VERIFICATION_FAILED", "RECOVERY_CODES_ISSUED",
                "TOTP_CONFIRMED", "TOTP_VERIFICATION_FAILED", "TOTP_ENROLLED");
    }

    @Test
    void anAppThatScansTheQrCodeReadsTheOtpauthUriAndGetsCodesTheServiceTakes() {
        String user = newUser();
        Answer enrolled = enrol(user, Map.of());
        assertThat(enrolled.text("qrCode")).startsWith("data:image/png;base64,");
        assertThat(AuthenticatorApp.decodeQr(enrolled.text("qrCode"))).isEqualTo(enrolled.text("otpauthUri"));
        AuthenticatorApp app = AuthenticatorApp.scan(enrolled.text("qrCode"));
        // The label defaults to the userId.
        assertThat(app.label()).isEqualTo(user);

        assertThat(confirm(user, enrolled.text("factorId"), app.codeAt(clock.instant())).json().get("confirmed")
                .asBoolean()).isTrue();
        clock.advance(Duration.ofSeconds(30));
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).json().get("valid").asBoolean()).isTrue();
    }

    /**
     * The replay rule through HTTP: of fifty simultaneous verifications of one code, exactly one is valid, and none
     * counts as a wrong guess (the next step's code still verifies).
     */
    @Test
    void ofFiftySimultaneousVerificationsOfOneCodeExactlyOneIsValid() throws Exception {
        String user = newUser();
        AuthenticatorApp app = enrolledAndConfirmed(user);
        clock.advance(Duration.ofSeconds(30));
        Map<String, String> code = Map.of("code", app.codeAt(clock.instant()));

        ExecutorService pool = Executors.newFixedThreadPool(50);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            answers.add(pool.submit(() -> {
                start.await();
                return api.post("/v1/users/" + user + "/totp/verify", code);
            }));
        }
        start.countDown();
        List<String> outcomes = new ArrayList<>();
        for (Future<Answer> answer : answers) {
            assertThat(answer.get().status()).isEqualTo(200);
            outcomes.add(answer.get().json().get("valid").asBoolean() ? "valid" : answer.get().text("reason"));
        }
        pool.shutdown();

        assertThat(outcomes).filteredOn("valid"::equals).hasSize(1);
        // A right code is never a wrong guess; fifty at once may find every place taken (then it is not tested).
        assertThat(outcomes).filteredOn(outcome -> !outcome.equals("valid"))
                .allMatch(outcome -> outcome.equals("REPLAYED") || outcome.equals("TOO_MANY_ATTEMPTS"));
        assertThat(auditEvents(user, "TOTP_VERIFIED")).hasSize(1);
        clock.advance(Duration.ofSeconds(30));
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).json().get("valid").asBoolean()).isTrue();
    }

    @Test
    void secretsAndRecoveryCodesAreShownWhenIssuedAndNeverAgainNorLogged(CapturedOutput output) {
        String user = newUser();
        Answer enrolled = enrol(user, Map.of("label", "ada"));
        String secret = enrolled.text("secret");
        String factorId = enrolled.text("factorId");
        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        List<String> codes = recoveryCodes(confirm(user, factorId, app.codeAt(clock.instant())));
        clock.advance(Duration.ofSeconds(30));
        verifyTotp(user, app.codeAt(clock.instant()));
        verifyTotp(user, "000000");
        recoveryVerify(user, codes.get(0));
        recoveryVerify(user, codes.get(0));
        List<String> reissued = recoveryCodes(api.post("/v1/users/" + user + "/recovery-codes", ""));
        assertThat(reissued).hasSize(10).doesNotContainAnyElementsOf(codes);

        List<String> shownOnce = new ArrayList<>(codes);
        shownOnce.addAll(reissued);
        shownOnce.add(secret);
        List<Answer> afterwards = List.of(api.get("/v1/users/" + user + "/totp"),
                api.get("/v1/users/" + user + "/audit?limit=100"), admin().get("/v1/admin/users/" + user),
                recoveryVerify(user, reissued.get(1)), verifyTotp(user, app.codeAt(clock.instant())));
        for (Answer answer : afterwards) {
            assertThat(answer.raw().body()).as(answer.raw().uri().toString()).doesNotContain(shownOnce.toArray(String[]::new))
                    .doesNotContain("otpauth");
        }
        JsonNode factor = afterwards.get(0).json().get("factors").get(0);
        assertThat(new ArrayList<>(factor.propertyNames())).containsExactly("factorId", "label", "confirmed",
                "createdAt", "lastUsedAt");
        assertThat(output.getAll()).doesNotContain(shownOnce.toArray(String[]::new)).doesNotContain("otpauth://", secret.toLowerCase());
    }

    @Test
    void fiveWrongCodesLockOutTheRightOneUntilTheWindowEnds() {
        String user = newUser();
        AuthenticatorApp app = enrolledAndConfirmed(user);
        clock.advance(Duration.ofSeconds(30));
        String right = app.codeAt(clock.instant());
        for (int guess = 1; guess <= 4; guess++) {
            assertThat(verifyTotp(user, wrongFor(right)).text("reason")).isEqualTo("INVALID_CODE");
        }
        assertThat(verifyTotp(user, wrongFor(right)).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");
        assertThat(verifyTotp(user, right).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");

        clock.advance(Duration.ofMinutes(15));
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).json().get("valid").asBoolean()).isTrue();
    }

    @Test
    void anOperatorLiftsATotpLockOut() {
        String user = newUser();
        AuthenticatorApp app = enrolledAndConfirmed(user);
        clock.advance(Duration.ofSeconds(30));
        String right = app.codeAt(clock.instant());
        for (int guess = 1; guess <= 5; guess++) {
            verifyTotp(user, wrongFor(right));
        }
        assertThat(verifyTotp(user, right).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");

        Answer lifted = admin().delete("/v1/admin/users/" + user + "/rate-limits/VERIFY_TOTP");
        assertThat(lifted.status()).isEqualTo(200);
        assertThat(lifted.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertThat(verifyTotp(user, right).json().get("valid").asBoolean()).isTrue();
    }

    /**
     * Support sees every lock-out of every factor: the rate-limit state and the operator overview list the
     * authenticator's and the recovery codes' windows and wrong guesses in a row, each lifted by its DELETE.
     */
    @Test
    void theRateLimitStateAndTheOverviewListTotpAndRecoveryLockOutsAndEachIsLifted() {
        String user = newUser();
        Answer enrolled = enrol(user, Map.of());
        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        List<String> codes = recoveryCodes(confirm(user, enrolled.text("factorId"), app.codeAt(clock.instant())));
        clock.advance(Duration.ofSeconds(30));
        String right = app.codeAt(clock.instant());
        for (int guess = 1; guess <= 5; guess++) {
            verifyTotp(user, wrongFor(right));
            recoveryVerify(user, "abcde-fghjk");
        }

        JsonNode limits = api.get("/v1/users/" + user + "/rate-limits").json().get("limits");
        JsonNode listed = admin().get("/v1/admin/users/" + user).json().get("rateLimits");

        assertThat(listed).isEqualTo(limits);
        for (String action : List.of("VERIFY_TOTP", "VERIFY_RECOVERY")) {
            assertThat(limits).as(action).filteredOn(limit -> limit.get("action").asString().equals(action))
                    .singleElement().satisfies(limit -> {
                        assertThat(limit.get("count").asLong()).isEqualTo(5);
                        assertThat(limit.get("limit").asInt()).isEqualTo(5);
                        assertThat(limit.get("resetsAt").asString()).isEqualTo("2026-11-30T10:15:00.000Z");
                    });
            assertThat(limits).as(action + " in a row").filteredOn(limit -> limit.get("action").asString()
                    .equals(action + "_CONSECUTIVE")).singleElement().satisfies(limit -> {
                        assertThat(limit.get("count").asLong()).isEqualTo(5);
                        assertThat(limit.get("limit").asInt()).isEqualTo(100);
                    });
        }
        Answer lifted = admin().delete("/v1/admin/users/" + user + "/rate-limits/VERIFY_RECOVERY_CONSECUTIVE");
        assertThat(lifted.status()).isEqualTo(200);
        assertThat(lifted.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertThat(admin().delete("/v1/admin/users/" + user + "/rate-limits/VERIFY_RECOVERY").status()).isEqualTo(200);
        assertThat(recoveryVerify(user, codes.get(0)).json().get("valid").asBoolean()).isTrue();
        assertThat(api.get("/v1/users/" + user + "/rate-limits").json().get("limits"))
                .filteredOn(limit -> limit.get("action").asString().equals("VERIFY_TOTP_CONSECUTIVE"))
                .singleElement().satisfies(limit -> assertThat(limit.get("count").asLong())
                        .as("the recovery code's success reset the wrong TOTP codes in a row").isZero());
    }

    /** The day's limit is gone; a lift of its old name is refused naming what took its place, and changes nothing. */
    @Test
    void aLiftOfTheRetiredDailyLimitNamesItsReplacement() {
        String user = newUser();

        Answer refused = admin().delete("/v1/admin/users/" + user + "/rate-limits/VERIFY_TOTP_DAILY");

        assertInvalid(refused, "action");
        assertThat(refused.text("detail")).contains("VERIFY_TOTP_DAILY is no longer counted")
                .contains("VERIFY_TOTP_CONSECUTIVE");
        assertThat(auditEventTypes(user)).isEmpty();
    }

    @Test
    void recoveryCodesWorkOnceAndANewSetVoidsTheOld() {
        String user = newUser();
        Answer none = api.post("/v1/users/" + user + "/recovery-codes", "");
        assertThat(none.status()).isEqualTo(409);
        assertThat(none.header("Content-Type")).startsWith("application/problem+json");
        assertThat(none.text("code")).isEqualTo("NO_FACTOR");
        assertThat(none.text("detail")).contains("enrol and confirm");

        Answer enrolled = enrol(user, Map.of());
        String factorId = enrolled.text("factorId");
        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        List<String> codes = recoveryCodes(confirm(user, factorId, app.codeAt(clock.instant())));
        assertThat(codes).allMatch(code -> code.matches("[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}"));

        Answer used = recoveryVerify(user, codes.get(0).toUpperCase().replace("-", " "));
        assertThat(used.json().get("valid").asBoolean()).isTrue();
        assertThat(used.json().get("remaining").asInt()).isEqualTo(9);
        Answer again = recoveryVerify(user, codes.get(0));
        assertThat(again.text("reason")).isEqualTo("USED");
        assertThat(again.json().get("remaining").asInt()).isEqualTo(9);

        Answer issued = api.post("/v1/users/" + user + "/recovery-codes", "");
        assertThat(issued.status()).isEqualTo(201);
        assertThat(issued.text("issuedAt")).isEqualTo("2026-11-30T10:00:00.000Z");
        assertThat(recoveryVerify(user, codes.get(1)).text("reason")).isEqualTo("INVALID_CODE");
        assertThat(recoveryVerify(user, recoveryCodes(issued).get(1)).json().get("remaining").asInt()).isEqualTo(9);
    }

    /**
     * A double click: two requests for a new set that both read the user's set before either wrote. One answers 201
     * with codes that work, the other a 409 problem that says what to do: never a 201 with codes that never work.
     */
    @Test
    void twoSimultaneousNewSetsAnswerOneSetThatWorksAndOneConflict() throws Exception {
        String user = newUser();
        enrolledAndConfirmed(user);
        recoveryCodeReads.meet(user, 2);

        List<Answer> answers = simultaneously(() -> api.post("/v1/users/" + user + "/recovery-codes", ""),
                () -> api.post("/v1/users/" + user + "/recovery-codes", ""));

        assertThat(answers).extracting(Answer::status).containsExactlyInAnyOrder(201, 409);
        Answer conflict = answers.stream().filter(answer -> answer.status() == 409).findFirst().orElseThrow();
        assertThat(conflict.header("Content-Type")).startsWith("application/problem+json");
        assertThat(conflict.text("code")).isEqualTo("RECOVERY_CODES_CONFLICT");
        assertThat(conflict.text("type")).isEqualTo("https://verification-service.dev/problems/recovery-codes-conflict");
        assertThat(conflict.text("detail")).contains("wrote nothing", "send this request again");
        Answer issued = answers.stream().filter(answer -> answer.status() == 201).findFirst().orElseThrow();
        Answer used = recoveryVerify(user, recoveryCodes(issued).get(0));
        assertThat(used.json().get("valid").asBoolean()).isTrue();
        assertThat(used.json().get("remaining").asInt()).isEqualTo(9);
        assertThat(auditEvents(user, "RECOVERY_CODES_ISSUED")).as("the confirmation's set and the winner's").hasSize(2);
    }

    /**
     * Under Idempotency-Keys: the conflict kept nothing, so its key runs the request again (a new set, voiding the
     * other); the winner's key replays nothing, as for any answer that held codes.
     */
    @Test
    void aConflictedNewSetRunsAgainUnderItsKeyAndTheWinnersKeyReplaysNoCodes() throws Exception {
        String user = newUser();
        enrolledAndConfirmed(user);
        recoveryCodeReads.meet(user, 2);
        String path = "/v1/users/" + user + "/recovery-codes";

        List<Answer> answers = simultaneously(() -> api.postIdempotent(path, "", "first-" + user),
                () -> api.postIdempotent(path, "", "second-" + user));

        assertThat(answers).extracting(Answer::status).containsExactlyInAnyOrder(201, 409);
        String winnerKey = answers.get(0).status() == 201 ? "first-" + user : "second-" + user;
        String loserKey = answers.get(0).status() == 201 ? "second-" + user : "first-" + user;
        List<String> winnerCodes = recoveryCodes(answers.get(answers.get(0).status() == 201 ? 0 : 1));
        Answer replay = api.postIdempotent(path, "", winnerKey);
        assertThat(replay.status()).isEqualTo(409);
        assertThat(replay.text("code")).isEqualTo("IDEMPOTENT_ANSWER_VOID");
        Answer again = api.postIdempotent(path, "", loserKey);
        assertThat(again.status()).isEqualTo(201);
        assertThat(recoveryVerify(user, winnerCodes.get(0)).text("reason")).isEqualTo("INVALID_CODE");
        assertThat(recoveryVerify(user, recoveryCodes(again).get(0)).json().get("valid").asBoolean()).isTrue();
    }

    @Test
    void aListShowsLiveFactorsAndRemovingTheLastConfirmedOneRemovesTheRecoveryCodes() {
        String user = newUser();
        String lapsing = enrol(user, Map.of("label", "old phone")).text("factorId");
        clock.advance(Duration.ofMinutes(10));
        Answer enrolled = enrol(user, Map.of("label", "phone"));
        String factorId = enrolled.text("factorId");
        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        List<String> codes = recoveryCodes(confirm(user, factorId, app.codeAt(clock.instant())));

        JsonNode factors = api.get("/v1/users/" + user + "/totp").json().get("factors");
        assertThat(factors).hasSize(2);
        assertThat(factors.get(0).get("factorId").asString()).isEqualTo(lapsing);
        assertThat(factors.get(0).get("confirmed").asBoolean()).isFalse();
        assertThat(factors.get(1).get("label").asString()).isEqualTo("phone");
        assertThat(factors.get(1).get("confirmed").asBoolean()).isTrue();
        assertThat(factors.get(1).get("createdAt").asString()).isEqualTo("2026-11-30T10:10:00.000Z");
        clock.advance(Duration.ofMinutes(6));
        assertThat(api.get("/v1/users/" + user + "/totp").json().get("factors")).as("the pending one lapsed")
                .hasSize(1);

        Answer removed = api.delete("/v1/users/" + user + "/totp/" + factorId);
        assertThat(removed.status()).isEqualTo(200);
        assertThat(removed.json().get("removed").asInt()).isEqualTo(1);
        assertThat(api.delete("/v1/users/" + user + "/totp/" + factorId).json().get("removed").asInt()).isZero();
        assertThat(api.get("/v1/users/" + user + "/totp").json().get("factors")).isEmpty();
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).text("reason")).isEqualTo("NO_FACTOR");
        Answer recovery = recoveryVerify(user, codes.get(0));
        assertThat(recovery.text("reason")).isEqualTo("INVALID_CODE");
        assertThat(recovery.json().get("remaining").asInt()).isZero();
    }

    @Test
    void badInputIsAProblemNamingTheFieldAndWritesNothing() {
        String user = newUser();
        String factorId = enrol(user, Map.of()).text("factorId");
        assertInvalid(enrol(user, Map.of("label", "Example:ada")), "label");
        assertInvalid(enrol(user, Map.of("issuer", "x".repeat(65))), "issuer");
        assertInvalid(api.post("/v1/users/a%23b/totp", Map.of()), "userId");
        assertInvalid(confirm(user, factorId, "12345"), "code");
        assertInvalid(confirm(user, "not-a-factor", "123456"), "factorId");
        assertInvalid(api.post("/v1/users/" + user + "/totp/" + factorId + "/confirm", Map.of()), "code");
        assertInvalid(verifyTotp(user, "12a456"), "code");
        assertInvalid(api.delete("/v1/users/" + user + "/totp/ABC"), "factorId");
        assertInvalid(api.post("/v1/users/" + user + "/recovery-codes/verify", Map.of()), "code");
        assertThat(api.post("/v1/users/" + user + "/totp", "").status()).isEqualTo(400);

        // Nothing tested, nothing written but the one enrolment (a tested attempt is audited, counted or not).
        assertThat(auditEventTypes(user)).containsExactly("TOTP_ENROLLED");
    }

    @Test
    void aRetriedEnrolmentWithItsIdempotencyKeyMakesOneFactorAndShowsItsSecretOnce() {
        String user = newUser();
        Answer first = api.postIdempotent("/v1/users/" + user + "/totp", Map.of("label", "phone"), "enrol-" + user);
        Answer again = api.postIdempotent("/v1/users/" + user + "/totp", Map.of("label", "phone"), "enrol-" + user);

        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.text("code")).isEqualTo("IDEMPOTENT_ANSWER_VOID");
        assertThat(again.raw().body()).doesNotContain(first.text("secret"));
        assertThat(api.get("/v1/users/" + user + "/totp").json().get("factors")).hasSize(1);
        // The key is the request's, path included: the same key for another user is another request.
        Answer other = api.postIdempotent("/v1/users/other-" + user + "/totp", Map.of("label", "phone"),
                "enrol-" + user);
        assertThat(other.status()).isEqualTo(422);
    }

    @Test
    void theOperatorRemovesEveryFactorAndTheRecoveryCodesOfAUserWhoLostTheirPhone() throws Exception {
        String user = newUser();
        AuthenticatorApp app = enrolledAndConfirmed(user);
        enrol(user, Map.of("label", "tablet"));

        JsonNode overview = admin().get("/v1/admin/users/" + user).json();
        assertThat(overview.get("totpFactors")).hasSize(2);
        assertThat(overview.get("recoveryCodesLeft").asInt()).isEqualTo(10);
        assertThat(api.delete("/v1/admin/users/" + user + "/totp").status()).as("an application key").isEqualTo(403);

        Answer removed = admin().delete("/v1/admin/users/" + user + "/totp");
        assertThat(removed.status()).isEqualTo(200);
        assertThat(removed.json().get("removed").asInt()).isEqualTo(2);
        JsonNode after = admin().get("/v1/admin/users/" + user).json();
        assertThat(after.get("totpFactors")).isEmpty();
        assertThat(after.get("recoveryCodesLeft").asInt()).isZero();
        clock.advance(Duration.ofSeconds(30));
        assertThat(verifyTotp(user, app.codeAt(clock.instant())).text("reason")).isEqualTo("NO_FACTOR");
        JsonNode entry = auditEvents(user, "TOTP_REMOVED").get(0);
        assertThat(entry.get("details").get("operatorKeyId").asString()).isEqualTo(adminKeyId(ADMIN_KEY));
        assertThat(entry.get("details").get("recoveryCodesRemoved").asString()).isEqualTo("10");
        assertThat(entry.toString()).doesNotContain(ADMIN_KEY);
    }

    /** Both calls at once, each on a thread of its own; their answers in the calls' order. */
    @SafeVarargs
    private static List<Answer> simultaneously(Callable<Answer>... calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.length);
        try {
            List<Future<Answer>> answers = new ArrayList<>();
            for (Callable<Answer> call : calls) {
                answers.add(pool.submit(call));
            }
            List<Answer> done = new ArrayList<>();
            for (Future<Answer> answer : answers) {
                done.add(answer.get(2, TimeUnit.MINUTES));
            }
            return done;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Enrols and confirms a factor for the user; answers the app that holds it. */
    AuthenticatorApp enrolledAndConfirmed(String user) {
        Answer enrolled = enrol(user, Map.of());
        AuthenticatorApp app = AuthenticatorApp.fromUri(enrolled.text("otpauthUri"));
        assertThat(confirm(user, enrolled.text("factorId"), app.codeAt(clock.instant())).json().get("confirmed")
                .asBoolean()).isTrue();
        return app;
    }

    Answer enrol(String user, Map<String, String> body) {
        return api.post("/v1/users/" + user + "/totp", body);
    }

    Answer confirm(String user, String factorId, String code) {
        return api.post("/v1/users/" + user + "/totp/" + factorId + "/confirm", Map.of("code", code));
    }

    Answer verifyTotp(String user, String code) {
        return api.post("/v1/users/" + user + "/totp/verify", Map.of("code", code));
    }

    Answer recoveryVerify(String user, String code) {
        return api.post("/v1/users/" + user + "/recovery-codes/verify", Map.of("code", code));
    }

    static List<String> recoveryCodes(Answer answer) {
        List<String> codes = new ArrayList<>();
        answer.json().get("recoveryCodes").forEach(code -> codes.add(code.asString()));
        return codes;
    }

    private static void assertInvalid(Answer answer, String field) {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.text("code")).isEqualTo("INVALID_INPUT");
        assertThat(answer.text("field")).isEqualTo(field);
    }
}

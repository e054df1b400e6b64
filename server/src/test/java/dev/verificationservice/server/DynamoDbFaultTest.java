package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import dev.verificationservice.testsupport.dynamodb.faults.FaultHandle;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionHold;
import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.annotation.DirtiesContext;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * The API on dynalite behind a fault-injecting proxy (contract §12): answers lost after the write was applied
 * (the SDK retries), throttling, a slow engine, an engine that is down. Each test asserts what the client
 * sees (503 STORE_UNAVAILABLE with Retry-After, within the configured call timeout) and what the table holds
 * afterwards (no double count, no second or missing code, no duplicate audit entry), then full recovery.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.encryption-keys=" + AbstractApiTest.ENCRYPTION_KEY,
        "verification.dev-outbox=true",
        "verification.dynamodb.call-timeout=PT2S",
        "verification.dynamodb.attempt-timeout=PT0.5S",
        "verification.dynamodb.max-attempts=3",
        "verification.readiness-timeout=PT1S"})
@Import(TestClockConfiguration.class)
// The proxy the context's store talks to ends with this class, so the context must too: cached, its webhook relay
// would go on polling a closed port for the rest of the run.
@DirtiesContext
class DynamoDbFaultTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();
    private static final String TABLE = "verification-faults-" + UUID.randomUUID();
    private static final AtomicInteger USERS = new AtomicInteger();
    private static DynamoDbFaultProxy proxy;

    static {
        System.setProperty("aws.region", "us-east-1");
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test");
    }

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    ApiClient api;

    @DynamicPropertySource
    static void dynamoDbBehindTheProxy(DynamicPropertyRegistry registry) {
        // dynalite has no TransactWriteItems: the proxy emulates it (see DynamoDbFaultProxy.Options).
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(), DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        ProxiedDynamoDbTable.register(registry, proxy, TABLE);
    }

    @AfterAll
    static void stopProxy() {
        proxy.close();
    }

    @BeforeEach
    void connect() {
        api = new ApiClient(port, AbstractApiTest.API_KEY);
        clock.set(TestClockConfiguration.START);
    }

    @AfterEach
    void healEverything() {
        proxy.clear();
        if (proxy.isStopped()) {
            proxy.resume();
        }
    }

    private static String newUser() {
        return "fault-" + USERS.incrementAndGet() + "-" + System.nanoTime();
    }

    private Answer send(String user) {
        return api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL",
                "deliveryTarget", AbstractApiTest.emailOf(user)));
    }

    private Answer verify(String user, String code) {
        return api.post("/v1/codes/verify", Map.of("code", code, "userId", user, "codeType", "EMAIL_VERIFICATION"));
    }

    private String latestCode() {
        return api.get("/dev/outbox").json().get("messages").get(0).get("code").asString();
    }

    private long count(String user, String action) {
        for (var limit : api.get("/v1/users/" + user + "/rate-limits").json().get("limits")) {
            if (limit.get("action").asString().equals(action)) {
                return limit.get("count").asLong();
            }
        }
        throw new AssertionError("no " + action + " in the rate limits");
    }

    private List<String> auditTypes(String user) {
        return api.get("/v1/users/" + user + "/audit").json().get("events").valueStream()
                .map(event -> event.get("eventType").asString()).toList();
    }

    /** The user's code items as the table holds them, read from the engine directly (not through the proxy). */
    private int storedCodes(String user) {
        return DYNALITE.get().client().query(QueryRequest.builder().tableName(TABLE).indexName("GSI1")
                .keyConditionExpression("GSI1PK = :pk AND begins_with(GSI1SK, :prefix)")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS("USER#" + user),
                        ":prefix", AttributeValue.fromS("CODE#")))
                .build()).count();
    }

    private static void assertUnavailable(Answer answer) {
        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.text("code")).isEqualTo("STORE_UNAVAILABLE");
        assertThat(answer.header("Retry-After")).matches("[1-9][0-9]*");
    }

    /** A 503 whose detail says what happened (one of the given descriptions), not always "in time". */
    private static void assertUnavailable(Answer answer, String whatHappened, String... orWhatHappened) {
        assertUnavailable(answer);
        List<String> truthful = new ArrayList<>(List.of(whatHappened));
        truthful.addAll(List.of(orWhatHappened));
        assertThat(answer.text("detail")).endsWith("Retry after the time in Retry-After.")
                .matches(detail -> truthful.stream().anyMatch(detail::startsWith), "starts with one of " + truthful);
    }

    // Lost answers: the write was applied, the SDK sends it again

    @Test
    void aLostAnswerToTheSendCounterCountsTheSendOnceMoreNeverLess() {
        String user = newUser();
        FaultHandle drop = proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains("SEND_EMAIL_VERIFICATION"));

        assertThat(send(user).status()).isEqualTo(202);

        assertThat(drop.applied()).isEqualTo(1);
        // A place is an unmarked +1: the SDK's retry lands again, so the send counts once more, never less.
        assertThat(count(user, "SEND_EMAIL_VERIFICATION")).isEqualTo(2);
    }

    @Test
    void aLostAnswerToTheCodeSlotsWriteLeavesTheDeliveredCodeStoredAndNoOther() {
        String user = newUser();
        FaultHandle drop = proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains("CURRENT#EMAIL_VERIFICATION"));

        assertThat(send(user).status()).isEqualTo(202);
        String delivered = latestCode();

        assertThat(drop.applied()).isEqualTo(1);
        assertThat(storedCodes(user)).as("the NUMERIC code is in the slot, no item beside it").isZero();
        assertThat(api.post("/v1/codes/check", Map.of("code", delivered, "userId", user,
                "codeType", "EMAIL_VERIFICATION")).json().get("valid").asBoolean())
                .as("the delivered code is the stored one").isTrue();
    }

    @Test
    void aLostAnswerToAnAuditAppendWritesOneEntry() {
        String user = newUser();
        FaultHandle drop = proxy.inject(Fault.dropAnswer("PutItem").whenBodyContains("CODE_SENT"));

        assertThat(send(user).status()).isEqualTo(202);

        assertThat(drop.applied()).isEqualTo(1);
        assertThat(auditTypes(user)).containsExactly("CODE_SENT");
    }

    @Test
    void aLostAnswerToAFailureCountCountsTheGuessOnceMoreNeverLess() {
        String user = newUser();
        send(user);
        String code = latestCode();
        FaultHandle drop = proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains("VERIFY_EMAIL_VERIFICATION"));

        Answer wrong = verify(user, code.equals("000000") ? "111111" : "000000");

        assertThat(wrong.json().get("reason").asString()).isEqualTo("NOT_FOUND");
        assertThat(drop.applied()).isEqualTo(1);
        assertThat(count(user, "VERIFY_EMAIL_VERIFICATION")).as("the retried place counted again").isEqualTo(2);
    }

    /**
     * The count of wrong answers in a row, taken after the test while nothing is counted and before it once something
     * is: a lost answer to either write (the SDK sends it again) counts the wrong answer once more, never less.
     */
    @Test
    void aLostAnswerToTheCountInARowCountsTheWrongAnswerOnceMoreNeverLess() {
        String user = newUser();
        send(user);
        String code = latestCode();
        String wrongCode = code.equals("000000") ? "111111" : "000000";
        for (int wrong = 1; wrong <= 2; wrong++) {
            FaultHandle drop = proxy.inject(Fault.dropAnswer("UpdateItem")
                    .whenBodyContains("VERIFY_EMAIL_VERIFICATION_CONSECUTIVE"));

            assertThat(verify(user, wrongCode).json().get("reason").asString()).isEqualTo("NOT_FOUND");

            assertThat(drop.applied()).isEqualTo(1);
            assertThat(count(user, "VERIFY_EMAIL_VERIFICATION_CONSECUTIVE")).isEqualTo(2L * wrong);
        }
        assertThat(count(user, "VERIFY_EMAIL_VERIFICATION")).isEqualTo(2);
    }

    @Test
    void aLostAnswerToTheConsumeStillAnswersValidWithOneAuditEntryAndTheCodeUsedOnce() {
        String user = newUser();
        send(user);
        String code = latestCode();
        FaultHandle drop = proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        Answer verified = verify(user, code);

        assertThat(drop.applied()).isEqualTo(1);
        assertThat(verified.json().get("valid").asBoolean()).as("never USED for the request that used it").isTrue();
        assertThat(auditTypes(user)).containsExactly("CODE_VERIFIED", "CODE_SENT");
        assertThat(count(user, "VERIFY_EMAIL_VERIFICATION")).as("the success gave its place back").isZero();
        assertThat(verify(user, code).json().get("reason").asString()).isEqualTo("USED");
    }

    /**
     * Issue 22: the consume transaction still runs when the SDK's attempt times out (0.5 s here); the SDK's
     * retries under the same token meet TransactionInProgressException (which it retries as throttling) until its
     * attempts (3) or its call timeout run out. The store then sends it again under that token until it is
     * settled: the request that used the code answers valid, never USED, and never a 503. Before, that third
     * turned-away retry never came: the SDK's failure was the answer.
     */
    @Test
    void aConsumeThatCommitsAfterTheAttemptTimeoutAnswersValidNeverUsedOrUnavailable() throws Exception {
        String user = newUser();
        send(user);
        String code = latestCode();
        TransactionHold hold = proxy.holdTransactions("CODE_VERIFIED");
        try {
            CompletableFuture<Answer> verified = CompletableFuture.supplyAsync(() -> verify(user, code));
            assertThat(hold.awaitHeld(1, Duration.ofSeconds(10))).isTrue();
            assertThat(hold.awaitTurnedAway(3, Duration.ofSeconds(20)))
                    .as("retries met the running transaction, past the SDK's own attempts").isTrue();

            hold.release();

            Answer answer = verified.get(30, TimeUnit.SECONDS);
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.json().get("valid").asBoolean()).isTrue();
        } finally {
            hold.release();
        }
        assertThat(auditTypes(user)).containsExactly("CODE_VERIFIED", "CODE_SENT");
    }

    @Test
    void aThrottledConsumeIsRetriedAndAppliedOnce() {
        String user = newUser();
        send(user);
        String code = latestCode();
        FaultHandle throttle = proxy.inject(Fault.throttle("TransactWriteItems"));

        assertThat(verify(user, code).json().get("valid").asBoolean()).isTrue();
        assertThat(throttle.applied()).isEqualTo(1);
        assertThat(auditTypes(user)).containsExactly("CODE_VERIFIED", "CODE_SENT");
    }

    // The store falters: 503 with Retry-After within the call timeout, readiness DOWN, then recovery

    @Test
    void anEngineThatIsDownGives503AndReadinessDownAndTheServiceRecoversByItself() {
        String user = newUser();
        proxy.stop();

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertUnavailable(send(user), "The store cannot be reached.");
            assertUnavailable(verify(user, "123456"), "The store cannot be reached.");
            assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(503);
        });

        proxy.resume();
        assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(200);
        assertThat(send(user).status()).isEqualTo(202);
    }

    @Test
    void withAnIdempotencyKeyAnEngineThatIsDownIsStill503WithRetryAfterAndTheRetryRuns() {
        String user = newUser();
        Map<String, String> device = Map.of("userId", user, "deviceId", "d-1", "deviceType", "WEB");
        proxy.stop();

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertUnavailable(sendIdempotent(user, "idem-send-" + user));
            assertUnavailable(api.postIdempotent("/v1/devices", device, "idem-device-" + user));
        });

        proxy.resume();
        assertThat(sendIdempotent(user, "idem-send-" + user).status()).isEqualTo(202);
        assertThat(api.postIdempotent("/v1/devices", device, "idem-device-" + user).status()).isEqualTo(201);
        assertThat(auditTypes(user)).containsExactlyInAnyOrder("CODE_SENT", "DEVICE_ADDED");
    }

    @Test
    void whenTheStoreFailsAfterTheKeyIsClaimedTheAnswerIs503AndARetryRunsOnceTheClaimIsStale() {
        String user = newUser();
        // The key is claimed (PutItem); then the send counter (UpdateItem) fails, and so does giving the key up
        // (DeleteItem): the request answers 503, and its claim stays pending.
        proxy.inject(Fault.serverError("UpdateItem").always());
        proxy.inject(Fault.serverError("DeleteItem").always());

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertUnavailable(sendIdempotent(user, "idem-" + user)));

        proxy.clear();
        clock.advance(IdempotentRequests.STALE_AFTER.plusSeconds(1));
        assertThat(sendIdempotent(user, "idem-" + user).status()).isEqualTo(202);
        assertThat(count(user, "SEND_EMAIL_VERIFICATION")).isEqualTo(1);
    }

    private Answer sendIdempotent(String user, String idempotencyKey) {
        return api.postIdempotent("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", AbstractApiTest.emailOf(user)), idempotencyKey);
    }

    @Test
    void aThrottlingEngineGives503WithinTheCallTimeoutNotAfterMinutesOfRetries() {
        String user = newUser();
        proxy.inject(Fault.throttle(Fault.ANY_OPERATION).always());

        // The SDK backs off between throttled attempts; when the call timeout ends that wait first, all the SDK
        // reports is the timeout (its ApiCallTimeoutException carries no cause), so either detail is what happened.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertUnavailable(send(user),
                "The store is throttling requests", "The store did not answer in time."));

        proxy.clear();
        assertThat(send(user).status()).isEqualTo(202);
    }

    @Test
    void anEngineThatAnswers500Gives503() {
        String user = newUser();
        proxy.inject(Fault.serverError(Fault.ANY_OPERATION).always());

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertUnavailable(send(user),
                "The store failed to complete the request."));
    }

    @Test
    void anEngineThatLacksAnOperationGives503ThatSaysSoNotATimeout() {
        String user = newUser();
        assertThat(send(user).status()).isEqualTo(202);
        String code = latestCode();
        // What plain dynalite answers a transaction: the service must not pass this off as "in time".
        proxy.inject(Fault.unexpectedError("TransactWriteItems", "UnknownOperationException",
                "An unknown operation was requested.").always());

        assertUnavailable(verify(user, code), "The store answered with an error the service does not expect");
    }

    @Test
    void aSlowEngineGives503WhenEveryAttemptTimesOut() {
        String user = newUser();
        proxy.inject(Fault.delay(Fault.ANY_OPERATION, Duration.ofSeconds(5)).always());

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertUnavailable(send(user), "The store did not answer in time.");
            assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(503);
        });
    }

    @Test
    void oneThrottledRequestIsRetriedAndTheCallerNeverNotices() {
        String user = newUser();
        FaultHandle throttle = proxy.inject(Fault.throttle("UpdateItem"));

        assertThat(send(user).status()).isEqualTo(202);
        assertThat(throttle.applied()).isEqualTo(1);
        assertThat(count(user, "SEND_EMAIL_VERIFICATION")).isEqualTo(1);
    }
}

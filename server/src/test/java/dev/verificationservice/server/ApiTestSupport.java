package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.server.openapi.ApiContract;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.junit.SkipReasonReporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

/**
 * The server through a real HTTP port, on one store: the fixture and helpers of the API tests. A subclass picks
 * the store. Every test uses its own user ids, so tests share the running service without seeing each other.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + ApiTestSupport.API_KEY + "," + ApiTestSupport.NEXT_API_KEY,
        "verification.admin-api-keys=" + ApiTestSupport.ADMIN_KEY + "," + ApiTestSupport.NEXT_ADMIN_KEY,
        "verification.secret-keys=" + ApiTestSupport.HMAC_KEY,
        "verification.encryption-keys=" + ApiTestSupport.ENCRYPTION_KEY})
@Import({TestClockConfiguration.class, RecoveryCodeReads.class})
@ExtendWith({SkipReasonReporter.class, OutputCaptureExtension.class})
abstract class ApiTestSupport {

    static final String API_KEY = "test-api-key-0123456789abcdefghijklmnop";
    static final String NEXT_API_KEY = "next-api-key-0123456789abcdefghijklmnop";
    static final String ADMIN_KEY = "test-admin-key-0123456789abcdefghijklmn";
    static final String NEXT_ADMIN_KEY = "next-admin-key-0123456789abcdefghijklmn";
    static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    /** The AES-256 key TOTP secrets are sealed with: required on DynamoDB, like the HMAC key. */
    static final String ENCRYPTION_KEY = "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=";
    private static final AtomicInteger USERS = new AtomicInteger();

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @Autowired
    RecoveryCodeReads recoveryCodeReads;

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

    /** Sends the user a code and presents a wrong one {@code guesses} times; answers the right code. */
    String sendAndGuessWrong(String userId, int guesses) {
        sendEmailCode(userId);
        String code = codeFromOutbox();
        for (int guess = 0; guess < guesses; guess++) {
            verify(userId, wrongFor(code));
        }
        return code;
    }

    static String wrongFor(String code) {
        return code.equals("000000") ? "111111" : "000000";
    }

    List<String> auditEventTypes(String userId) {
        List<String> types = new ArrayList<>();
        api.get("/v1/users/" + userId + "/audit?limit=100").json().get("events")
                .forEach(event -> types.add(event.get("eventType").asString()));
        return types;
    }

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

    static Map<String, String> with(Map<String, String> body, String key, String value) {
        Map<String, String> copy = new java.util.LinkedHashMap<>(body);
        copy.put(key, value);
        return copy;
    }

    /** A mobile number of its own for a test: sends to one number are limited whatever the user. */
    static String mobile(String prefix, int digits) {
        return prefix + String.format("%0" + digits + "d", Math.floorMod(System.nanoTime(), (long) Math.pow(10, digits)));
    }
}

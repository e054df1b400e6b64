package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.verificationservice.delivery.sms.WebhookSmsSender;
import dev.verificationservice.server.ApiClient.Answer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * SMS codes through the signed webhook, received by a real local HTTP server that checks the signature as an
 * operator's receiver would, and answers with the status the test chooses.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.sms.provider=webhook",
        "verification.sms.webotp-domain=App.Example.com",
        "verification.sms.webhook-secret=" + WebhookSmsTest.SECRET})
@Import(TestClockConfiguration.class)
class WebhookSmsTest {

    static final String SECRET = "webhook-secret-0123456789abcdefghijklmnopqrstuvwxyz";
    static final List<JsonNode> RECEIVED = new CopyOnWriteArrayList<>();
    static final AtomicInteger ANSWER = new AtomicInteger(204);
    static final AtomicInteger BAD_SIGNATURES = new AtomicInteger();
    static HttpServer receiver;

    @LocalServerPort
    int port;

    ApiClient api;

    @DynamicPropertySource
    static void webhook(DynamicPropertyRegistry registry) throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/sms", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String timestamp = exchange.getRequestHeaders().getFirst(WebhookSmsSender.TIMESTAMP_HEADER);
            String signature = exchange.getRequestHeaders().getFirst(WebhookSmsSender.SIGNATURE_HEADER);
            // Recomputed here as a receiver would, with the JDK's HMAC, not with the sender's own code.
            String expected = "sha256=" + hmacSha256Hex(SECRET, timestamp + "." + body);
            if (signature == null || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                    signature.getBytes(StandardCharsets.UTF_8))) {
                BAD_SIGNATURES.incrementAndGet();
                exchange.sendResponseHeaders(401, -1);
            } else {
                RECEIVED.add(ApiClient.JSON.readTree(body));
                exchange.sendResponseHeaders(ANSWER.get(), -1);
            }
            exchange.close();
        });
        receiver.start();
        registry.add("verification.sms.webhook-url", () -> "http://127.0.0.1:" + receiver.getAddress().getPort() + "/sms");
        registry.add("verification.data-dir", Files.createTempDirectory("verification-webhook-test")::toString);
    }

    @AfterAll
    static void stopReceiver() {
        receiver.stop(0);
    }

    @BeforeEach
    void connect() {
        api = new ApiClient(port, AbstractApiTest.API_KEY);
        ANSWER.set(204);
    }

    @Test
    void aSignedRequestCarriesTheCodeAndTheCodeVerifies() {
        int before = RECEIVED.size();
        Answer sent = api.post("/v1/codes", Map.of("userId", "sms-user-1", "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700123456"));
        assertThat(sent.status()).isEqualTo(202);

        assertThat(BAD_SIGNATURES.get()).isZero();
        JsonNode request = RECEIVED.get(before);
        assertThat(request.get("to").asString()).isEqualTo("+447700123456");
        assertThat(request.get("codeType").asString()).isEqualTo("PHONE_VERIFICATION");
        Matcher digits = Pattern.compile("\\b([0-9]{6})\\b").matcher(request.get("message").asString());
        assertThat(digits.find()).isTrue();

        Answer verified = api.post("/v1/codes/verify", Map.of("code", digits.group(1), "userId", "sms-user-1",
                "codeType", "PHONE_VERIFICATION"));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
    }

    @Test
    void aWebhookThatFailsMeans502AndAnInvalidatedCode() {
        ANSWER.set(500);
        int before = RECEIVED.size();
        Answer sent = api.post("/v1/codes", Map.of("userId", "sms-user-2", "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700123456"));

        assertThat(sent.status()).isEqualTo(502);
        assertThat(sent.text("code")).isEqualTo("DELIVERY_FAILED");
        Matcher digits = Pattern.compile("\\b([0-9]{6})\\b").matcher(RECEIVED.get(before).get("message").asString());
        assertThat(digits.find()).isTrue();
        Answer verified = api.post("/v1/codes/verify", Map.of("code", digits.group(1), "userId", "sms-user-2",
                "codeType", "PHONE_VERIFICATION"));
        assertThat(verified.text("reason")).isEqualTo("NOT_FOUND");
    }

    private static String hmacSha256Hex(String secret, String message) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return java.util.HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A German mobile number without a locale: the SMS is in German, ends with the WebOTP line, fits one GSM-7
     * segment, and the segment is counted by encoding.
     */
    @Test
    void anSmsInTheNumbersLanguageEndsWithTheWebOtpLineAndItsSegmentsAreCounted() {
        int before = RECEIVED.size();
        String number = "+49151" + String.format("%08d", Math.floorMod(System.nanoTime(), 100_000_000L));
        Answer sent = api.post("/v1/codes", Map.of("userId", "sms-user-3", "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", number, "codeLength", 10));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.text("locale")).isEqualTo("de");

        String message = RECEIVED.get(before).get("message").asString();
        List<String> lines = message.lines().toList();
        assertThat(lines.get(0)).matches("Ihr Bestätigungscode lautet [0-9]{10}\\. Er ist 15 Minuten gültig\\. .*");
        String code = lines.get(0).substring("Ihr Bestätigungscode lautet ".length(), "Ihr Bestätigungscode lautet ".length() + 10);
        // WebOTP: the last line is "@" the host, a space, "#" the code.
        assertThat(lines.get(lines.size() - 1)).isEqualTo("@app.example.com #" + code);

        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();
        assertThat(metrics).containsPattern("verification_sms_segments_total\\{encoding=\"GSM_7\"[^}]*} [1-9]");
        assertThat(metrics).doesNotContain(number.substring(1), code);

        Answer verified = api.post("/v1/codes/verify", Map.of("code", code, "userId", "sms-user-3",
                "codeType", "PHONE_VERIFICATION"));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
    }

    /** A LINK SMS has nothing to type: no WebOTP line. A context is shown on a line of its own. */
    @Test
    void aLinkSmsHasNoWebOtpLineAndShowsItsContext() {
        int before = RECEIVED.size();
        Answer sent = api.post("/v1/codes", Map.of("userId", "sms-user-4", "codeType", "PASSWORD_RESET",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700123457", "context", "Reset for account 42"));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.text("locale")).isEqualTo("en");
        String message = RECEIVED.get(before).get("message").asString();
        assertThat(message).startsWith("Reset your password: http://localhost:8080/reset-password?code=")
                .contains("\nThis link approves: Reset for account 42").doesNotContain("@app.example.com");
    }
}

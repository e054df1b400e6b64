package dev.verificationservice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the real server cannot be made to do on cue: a 503 from something in front of it, a 503 followed by a
 * success, an answer that never comes, a body that is not the API's. A small JDK HTTP server plays those, and
 * the client's {@link RetryPolicy} is counted in requests (its waits are recorded, not slept).
 */
class RetryAndTransportTest {

    /** One canned answer. */
    record Canned(int status, String contentType, String body, Map<String, String> headers, Duration delay) {
        static Canned of(int status, String contentType, String body, Map<String, String> headers) {
            return new Canned(status, contentType, body, headers, Duration.ZERO);
        }
    }

    private HttpServer fake;
    /** Ends every delayed answer still waiting when the test ends. */
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Queue<Canned> answers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final List<String> authorizations = new ArrayList<>();
    private final List<Duration> waits = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        fake = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        fake.createContext("/", this::answer);
        fake.setExecutor(Executors.newCachedThreadPool());
        fake.start();
    }

    @AfterEach
    void stop() {
        stopped.countDown();
        fake.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        synchronized (authorizations) {
            authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
        }
        exchange.getRequestBody().readAllBytes();
        Canned canned = answers.size() > 1 ? answers.poll() : answers.peek();
        if (!canned.delay().isZero()) {
            try {
                stopped.await(canned.delay().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] body = canned.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", canned.contentType());
        canned.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        exchange.sendResponseHeaders(canned.status(), body.length == 0 ? -1 : body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private URI uri() {
        return URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/prefix/");
    }

    private VerificationClient client(RetryPolicy policy) {
        return VerificationClient.builder().baseUri(uri()).apiKey("key-0123456789abcdefghijklmnop")
                .retryPolicy(policy).sleeper(waits::add).build();
    }

    private static Canned gateway503(String retryAfter) {
        return Canned.of(503, "text/html", "<html>upstream busy</html>", Map.of("Retry-After", retryAfter));
    }

    private static final String NO_DEVICES = "{\"devices\":[]}";

    @Test
    void aSafeCallIsRetriedUpToMaxAttemptsAfterEachRetryAfter() {
        answers.add(gateway503("2"));
        VerificationClient client = client(RetryPolicy.builder().maxAttempts(3).build());

        assertThatThrownBy(() -> client.devices().list("u-1"))
                .isExactlyInstanceOf(ServiceUnavailableException.class)
                .isInstanceOfSatisfying(ServiceUnavailableException.class, e -> {
                    assertThat(e.code()).isEqualTo("SERVICE_UNAVAILABLE");
                    assertThat(e.retryAfter()).contains(Duration.ofSeconds(2));
                    assertThat(e.detail()).contains("upstream busy");
                });
        assertThat(requests).hasValue(3);
        assertThat(waits).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2));
        assertThat(authorizations).containsOnly("Bearer key-0123456789abcdefghijklmnop");
    }

    @Test
    void aSafeCallSucceedsWhenTheRetryDoes() {
        answers.add(Canned.of(503, "application/problem+json", "{\"status\":503,\"code\":\"STORE_UNAVAILABLE\","
                + "\"detail\":\"slow\"}", Map.of("Retry-After", "1")));
        answers.add(Canned.of(200, "application/json", NO_DEVICES, Map.of()));

        assertThat(client(RetryPolicy.defaults()).devices().list("u-1")).isEmpty();
        assertThat(requests).hasValue(2);
        assertThat(waits).containsExactly(Duration.ofSeconds(1));
    }

    @Test
    void aWriteIsNotRetriedUnlessTheCallerOptsIn() {
        answers.add(gateway503("0"));
        assertThatThrownBy(() -> client(RetryPolicy.builder().maxAttempts(3).build()).codes()
                .verify(PresentedCode.numeric("123456", "u-1", CodeType.EMAIL_VERIFICATION)))
                .isInstanceOf(ServiceUnavailableException.class);
        assertThat(requests).hasValue(1);

        requests.set(0);
        assertThatThrownBy(() -> client(RetryPolicy.builder().maxAttempts(3).alsoRetry(Operation.VERIFY_CODE).build())
                .codes().verify(PresentedCode.numeric("123456", "u-1", CodeType.EMAIL_VERIFICATION)))
                .isInstanceOf(ServiceUnavailableException.class);
        assertThat(requests).hasValue(3);

        requests.set(0);
        assertThatThrownBy(() -> client(RetryPolicy.builder().maxAttempts(3).build()).codes()
                .send(SendCodeRequest.of("u-1", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com")))
                .isInstanceOf(ServiceUnavailableException.class);
        assertThat(requests).hasValue(1);
    }

    @Test
    void aLongerRetryAfterThanMaxDelayEndsTheCallAtOnce() {
        answers.add(gateway503("60"));
        assertThatThrownBy(() -> client(RetryPolicy.defaults()).rateLimits("u-1"))
                .isInstanceOfSatisfying(ServiceUnavailableException.class, e -> assertThat(e.retryAfter())
                        .contains(Duration.ofSeconds(60)));
        assertThat(requests).hasValue(1);
        assertThat(waits).isEmpty();
    }

    @Test
    void noRetriesWithThePolicyNone() {
        answers.add(gateway503("0"));
        assertThatThrownBy(() -> client(RetryPolicy.none()).devOutbox()).isInstanceOf(ServiceUnavailableException.class);
        assertThat(requests).hasValue(1);
    }

    @Test
    void retryAfterMayBeAnHttpDate() {
        String inTenSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)
                .plusSeconds(10));
        assertThat(Transport.parseRetryAfter(inTenSeconds)).hasValueSatisfying(wait -> assertThat(wait)
                .isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10)));
        assertThat(Transport.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")).contains(Duration.ZERO);
        assertThat(Transport.parseRetryAfter(" 7 ")).contains(Duration.ofSeconds(7));
        assertThat(Transport.parseRetryAfter("soon")).isEmpty();
    }

    /** The answer waits until the test ends: only the client's request timeout can end the call (JUnit's bounds a hang). */
    @Test
    @Timeout(120)
    void theRequestTimeoutBoundsAnAnswerThatNeverComes() {
        answers.add(new Canned(200, "application/json", NO_DEVICES, Map.of(), Duration.ofDays(1)));
        VerificationClient client = VerificationClient.builder().baseUri(uri()).apiKey("key-0123456789abcdef")
                .requestTimeout(Duration.ofMillis(300)).build();
        assertThatThrownBy(() -> client.devices().list("u-1"))
                .isInstanceOfSatisfying(TransportException.class, e -> assertThat(e.timedOut()).isTrue());
    }

    @Test
    void aServiceThatIsNotThereIsATransportException() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        VerificationClient client = VerificationClient.builder().baseUri(URI.create("http://127.0.0.1:" + port))
                .apiKey("key-0123456789abcdef").connectTimeout(Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> client.rateLimits("u-1"))
                .isInstanceOfSatisfying(TransportException.class, e -> assertThat(e.timedOut()).isFalse());
    }

    @Test
    void anAnswerThatIsNotTheApisIsUnexpected() {
        answers.add(Canned.of(200, "text/html", "<html>login page</html>", Map.of()));
        assertThatThrownBy(() -> client(RetryPolicy.none()).devices().list("u-1"))
                .isInstanceOfSatisfying(UnexpectedResponseException.class, e -> {
                    assertThat(e.status()).isEqualTo(200);
                    assertThat(e.body()).contains("login page");
                });

        answers.clear();
        answers.add(Canned.of(502, "text/html", "<html>bad gateway</html>", Map.of()));
        assertThatThrownBy(() -> client(RetryPolicy.none()).codes()
                .send(SendCodeRequest.of("u-1", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com")))
                .isInstanceOf(UnexpectedResponseException.class);

        answers.clear();
        answers.add(Canned.of(200, "application/json", "{\"devices\":[{\"deviceId\":1}]}", Map.of()));
        assertThatThrownBy(() -> client(RetryPolicy.none()).devices().list("u-1"))
                .isInstanceOf(UnexpectedResponseException.class).hasMessageContaining("deviceId");
    }

    @Test
    void aNewerServicesReasonIsUnknownNotAnError() {
        answers.add(Canned.of(200, "application/json", "{\"valid\":false,\"reason\":\"SOMETHING_NEW\",\"extra\":1}",
                Map.of()));
        assertThat(client(RetryPolicy.none()).codes().verify(PresentedCode.link("x")))
                .isEqualTo(new VerifyResult.Invalid(InvalidCodeReason.UNKNOWN));
    }

    @Test
    void theBaseUrisPathPrefixIsKept() {
        answers.add(Canned.of(200, "application/json", "{\"limits\":[]}", Map.of()));
        List<String> paths = new ArrayList<>();
        fake.removeContext("/");
        fake.createContext("/", exchange -> {
            paths.add(exchange.getRequestURI().getRawPath());
            answer(exchange);
        });
        assertThat(client(RetryPolicy.none()).rateLimits("a b/c")).isEmpty();
        assertThat(paths).containsExactly("/prefix/v1/users/a%20b%2Fc/rate-limits");
    }

    @Test
    void theBuilderRefusesWhatCannotWork() {
        assertThatThrownBy(() -> VerificationClient.builder().apiKey("k").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("baseUri");
        assertThatThrownBy(() -> VerificationClient.builder().baseUri(URI.create("ftp://x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VerificationClient.builder().apiKey("with space"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RetryPolicy.defaults().operations()).containsExactlyInAnyOrder(Operation.CHECK_CODE,
                Operation.LIST_DEVICES, Operation.LIST_TOTP, Operation.PASSKEY_REGISTRATION_OPTIONS,
                Operation.PASSKEY_SIGN_IN_OPTIONS, Operation.LIST_PASSKEYS, Operation.RENAME_PASSKEY,
                Operation.AUDIT, Operation.RATE_LIMITS,
                Operation.DEV_OUTBOX, Operation.LIST_WEBHOOKS, Operation.ENABLE_WEBHOOK, Operation.WEBHOOK_DELIVERIES,
                Operation.SMS_RANGES, Operation.ALLOW_SMS_RANGE, Operation.LIFT_SMS_BREAKER,
                Operation.SMS_COUNTRIES, Operation.LIFT_SMS_COUNTRY_BREAKER);
    }
}

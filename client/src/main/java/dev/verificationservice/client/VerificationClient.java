package dev.verificationservice.client;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Verification Service's HTTP API, from Java. Build one per service and share it: it is immutable and
 * thread-safe.
 *
 * <pre>{@code
 * VerificationClient client = VerificationClient.builder()
 *         .baseUri(URI.create("https://verification.internal"))
 *         .apiKey(System.getenv("VERIFICATION_API_KEY"))
 *         .build();
 * SendResult sent = client.codes().send(SendCodeRequest.of("user-42", CodeType.EMAIL_VERIFICATION,
 *         DeliveryMethod.EMAIL, "jane@example.com"));
 * }</pre>
 *
 * <p>Calls: {@link #codes()} (send, check, verify), {@link #devices()} (register, verify, list, revoke,
 * revoke all), {@link #totp()} (authenticator apps and recovery codes), {@link #passkeys()} (passkeys),
 * {@link #audit()} (pages of a user's
 * history, and an iteration over all of them),
 * {@link #rateLimits(String)} and {@link #devOutbox()}. Failures are {@link VerificationClientException}s;
 * retries follow the {@link RetryPolicy} (by default one retry after a 503, for reads and {@code check} only).
 */
public final class VerificationClient {

    /** Connect timeout unless set: 5 seconds. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Request timeout unless set: 15 seconds, above the service's own bounds (a store call gives up after
     * 3 to 5 seconds, an SMTP or webhook delivery after 10).
     */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(15);

    private final URI baseUri;
    private final Transport transport;
    private final CodesClient codes;
    private final DevicesClient devices;
    private final AuditClient audit;
    private final TotpClient totp;
    private final WebhooksClient webhooks;
    private final PasskeysClient passkeys;
    private final SmsRangesClient smsRanges;
    private final SmsCountriesClient smsCountries;

    private VerificationClient(Builder builder) {
        this.baseUri = builder.baseUri;
        HttpClient http = builder.httpClient != null ? builder.httpClient
                : HttpClient.newBuilder().connectTimeout(builder.connectTimeout)
                        .followRedirects(HttpClient.Redirect.NEVER).build();
        this.transport = new Transport(builder.baseUri, builder.apiKey, http, builder.requestTimeout,
                builder.retryPolicy, JsonMapper.builder().build(), builder.sleeper);
        this.codes = new CodesClient(transport);
        this.devices = new DevicesClient(transport);
        this.audit = new AuditClient(transport);
        this.totp = new TotpClient(transport);
        this.webhooks = new WebhooksClient(transport);
        this.passkeys = new PasskeysClient(transport);
        this.smsRanges = new SmsRangesClient(transport);
        this.smsCountries = new SmsCountriesClient(transport);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Sending, checking and verifying codes. */
    public CodesClient codes() {
        return codes;
    }

    /** Remembered devices. */
    public DevicesClient devices() {
        return devices;
    }

    /** Authenticator apps (TOTP) and recovery codes. */
    public TotpClient totp() {
        return totp;
    }

    /** Passkeys (WebAuthn): options, registration, sign-in, and the user's passkeys. */
    public PasskeysClient passkeys() {
        return passkeys;
    }

    /** The security audit log. */
    public AuditClient audit() {
        return audit;
    }

    /** Webhook endpoints (operator API): needs a client built with an admin key. */
    public WebhooksClient webhooks() {
        return webhooks;
    }

    /** SMS number ranges (operator API): open breakers, worst and allowed ranges; needs an admin key. */
    public SmsRangesClient smsRanges() {
        return smsRanges;
    }

    /** SMS countries (operator API): the open country breakers and their lift; needs an admin key. */
    public SmsCountriesClient smsCountries() {
        return smsCountries;
    }

    /** {@code GET /v1/users/{userId}/rate-limits}: the current window of each of the user's limits. */
    public List<RateLimit> rateLimits(String userId) {
        Objects.requireNonNull(userId, "userId");
        Fields answer = transport.get(Operation.RATE_LIMITS, "/v1/users/" + Transport.segment(userId)
                + "/rate-limits").json();
        return answer.objects("limits").stream()
                .map(limit -> new RateLimit(limit.text("action"), limit.instant("windowStart"), limit.number("count"),
                        limit.integer("limit"), limit.instant("resetsAt")))
                .toList();
    }

    /**
     * {@code GET /dev/outbox}: the development outbox, newest first. It exists only while the service has no
     * delivery channel; otherwise this throws a {@link ProblemException} with code {@code OUTBOX_DISABLED}.
     */
    public List<OutboxMessage> devOutbox() {
        return outbox("/dev/outbox");
    }

    /**
     * {@code GET /dev/outbox?userId=}: the development outbox's messages sent for one user, newest first (an
     * outbox shared by several developers or tests holds other users' codes too).
     */
    public List<OutboxMessage> devOutbox(String userId) {
        return outbox("/dev/outbox?userId=" + URLEncoder.encode(userId, StandardCharsets.UTF_8));
    }

    private List<OutboxMessage> outbox(String pathAndQuery) {
        Fields answer = transport.get(Operation.DEV_OUTBOX, pathAndQuery).json();
        return answer.objects("messages").stream()
                .map(message -> new OutboxMessage(message.text("userId"),
                        message.enumValue("channel", DeliveryMethod.class),
                        message.text("to"), message.enumValue("codeType", CodeType.class), message.text("code"),
                        message.text("body"), message.instant("sentAt")))
                .toList();
    }

    /** The service this client calls. */
    public URI baseUri() {
        return baseUri;
    }

    @Override
    public String toString() {
        return "VerificationClient[" + baseUri + "]";
    }

    /** Builds a {@link VerificationClient}; the base URI and the API key are required. Not thread-safe. */
    public static final class Builder {
        private URI baseUri;
        private String apiKey;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private HttpClient httpClient;
        private Transport.Sleeper sleeper = duration -> Thread.sleep(duration.toMillis());

        private Builder() {
        }

        /** Where the service is, e.g. {@code https://verification.internal:8443} (a path prefix is kept). */
        public Builder baseUri(URI baseUri) {
            Objects.requireNonNull(baseUri, "baseUri");
            if (!"http".equalsIgnoreCase(baseUri.getScheme()) && !"https".equalsIgnoreCase(baseUri.getScheme())) {
                throw new IllegalArgumentException("baseUri must be http or https: " + baseUri);
            }
            if (baseUri.getRawQuery() != null || baseUri.getRawFragment() != null) {
                throw new IllegalArgumentException("baseUri must have no query or fragment: " + baseUri);
            }
            this.baseUri = baseUri;
            return this;
        }

        /** One of the service's {@code VERIFICATION_API_KEYS}, sent as {@code Authorization: Bearer <key>}. */
        public Builder apiKey(String apiKey) {
            Objects.requireNonNull(apiKey, "apiKey");
            if (apiKey.isBlank() || apiKey.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
                throw new IllegalArgumentException("apiKey must be printable ASCII without spaces");
            }
            this.apiKey = apiKey;
            return this;
        }

        /** How long to wait for a connection (ignored with {@link #httpClient}, which has its own). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /** How long to wait for each answer, per attempt. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive(requestTimeout, "requestTimeout");
            return this;
        }

        /** When to repeat a call that answered 503; {@link RetryPolicy#defaults()} unless set. */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /**
         * An HttpClient of the application's own (a proxy, TLS settings, an executor). It should not follow
         * redirects: the API key would go along.
         */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
            return this;
        }

        /** For the tests: how the client waits before a retry. */
        Builder sleeper(Transport.Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        public VerificationClient build() {
            if (baseUri == null) {
                throw new IllegalStateException("baseUri is required");
            }
            if (apiKey == null) {
                throw new IllegalStateException("apiKey is required");
            }
            return new VerificationClient(this);
        }

        private static Duration positive(Duration duration, String name) {
            Objects.requireNonNull(duration, name);
            if (duration.isZero() || duration.isNegative()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return duration;
        }
    }
}

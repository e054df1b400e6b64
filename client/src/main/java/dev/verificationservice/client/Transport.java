package dev.verificationservice.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * One HTTP exchange with the service: the API key, JSON in and out, timeouts, problem details turned into
 * exceptions, and the {@link RetryPolicy} applied to 503 answers.
 */
final class Transport {

    /** How the client waits before a retry; the tests replace it. */
    interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    static final String USER_AGENT = "verification-client/1";
    private static final int BODY_EXCERPT = 200;

    private final String base;
    private final String authorization;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final RetryPolicy retryPolicy;
    private final JsonMapper json;
    private final Sleeper sleeper;

    Transport(URI baseUri, String apiKey, HttpClient http, Duration requestTimeout, RetryPolicy retryPolicy,
              JsonMapper json, Sleeper sleeper) {
        String text = baseUri.toString();
        this.base = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        this.authorization = "Bearer " + apiKey;
        this.http = http;
        this.requestTimeout = requestTimeout;
        this.retryPolicy = retryPolicy;
        this.json = json;
        this.sleeper = sleeper;
    }

    /** {@code text} as a JSON object for a request body; anything else is the caller's {@code field} at fault. */
    JsonNode object(String field, String text) {
        try {
            JsonNode node = json.readTree(text);
            if (node != null && node.isObject()) {
                return node;
            }
        } catch (JacksonException e) {
            // The same answer as for JSON that is no object.
        }
        throw new IllegalArgumentException(field + " must be a JSON object");
    }

    Answer get(Operation operation, String path) {
        return exchange(operation, request(path).GET());
    }

    Answer delete(Operation operation, String path) {
        return exchange(operation, request(path).DELETE());
    }

    Answer put(Operation operation, String path) {
        return exchange(operation, request(path).PUT(HttpRequest.BodyPublishers.noBody()));
    }

    Answer post(Operation operation, String path, Map<String, Object> body) {
        return exchange(operation, request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body), StandardCharsets.UTF_8)));
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(requestTimeout)
                .header("Authorization", authorization)
                .header("Accept", "application/json, application/problem+json")
                .header("User-Agent", USER_AGENT);
    }

    /** Sends the request, repeating it after a 503 where the policy allows; any 503 left is thrown. */
    private Answer exchange(Operation operation, HttpRequest.Builder builder) {
        HttpRequest request = builder.build();
        for (int attempt = 1; ; attempt++) {
            Answer answer = sendOnce(request);
            if (answer.status() != 503) {
                return answer;
            }
            ServiceUnavailableException unavailable = (ServiceUnavailableException) answer.problem();
            Optional<Duration> delay = retryPolicy.delayBeforeRetry(operation, attempt, unavailable.retryAfter());
            if (delay.isEmpty()) {
                throw unavailable;
            }
            try {
                sleeper.sleep(delay.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw unavailable;
            }
        }
    }

    private Answer sendOnce(HttpRequest request) {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException e) {
            throw new TransportException("Could not connect to " + base + " in time", e, true);
        } catch (HttpTimeoutException e) {
            throw new TransportException(request.method() + " " + request.uri().getPath() + " got no answer within "
                    + requestTimeout, e, true);
        } catch (IOException e) {
            throw new TransportException(request.method() + " " + request.uri().getPath() + " failed: " + e, e, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransportException("Interrupted while waiting for " + request.method() + " "
                    + request.uri().getPath(), e, false);
        }
        return new Answer(response.statusCode(), response.headers(), response.body());
    }

    /** One answer of the service. */
    final class Answer {
        private final int status;
        private final HttpHeaders headers;
        private final String body;

        Answer(int status, HttpHeaders headers, String body) {
            this.status = status;
            this.headers = headers;
            this.body = body == null ? "" : body;
        }

        int status() {
            return status;
        }

        boolean success() {
            return status >= 200 && status < 300;
        }

        /** The JSON object of a successful answer; any other answer is thrown as its exception. */
        Fields json() {
            if (!success()) {
                throw problem();
            }
            return new Fields(this, parse().orElseThrow(() -> unexpected("The answer is not a JSON object")));
        }

        /** The answer's {@code Retry-After}: delta-seconds or an HTTP date. */
        Optional<Duration> retryAfter() {
            return headers.firstValue("Retry-After").flatMap(Transport::parseRetryAfter);
        }

        /** The exception for an answer that is not a success: a problem's own type, or unexpected. */
        VerificationClientException problem() {
            Optional<JsonNode> parsed = isProblem() ? parse() : Optional.empty();
            if (parsed.isEmpty()) {
                if (status == 503) {
                    return new ServiceUnavailableException(status, "SERVICE_UNAVAILABLE", "Service Unavailable",
                            "The service is unavailable" + excerptSuffix(), Map.of(), retryAfter());
                }
                return unexpected("The answer is not a problem document");
            }
            JsonNode node = parsed.get();
            String code = text(node, "code").orElse("HTTP_" + status);
            String title = text(node, "title").orElse("");
            String detail = text(node, "detail").orElse("");
            Map<String, Object> properties = new LinkedHashMap<>();
            node.properties().forEach(property -> {
                JsonNode value = property.getValue();
                if (value.isString()) {
                    properties.put(property.getKey(), value.stringValue());
                } else if (value.isNumber()) {
                    properties.put(property.getKey(), value.numberValue());
                } else if (value.isBoolean()) {
                    properties.put(property.getKey(), value.booleanValue());
                }
            });
            if (status == 400 && code.equals("INVALID_INPUT")) {
                return new InvalidInputException(status, code, title, detail, properties,
                        text(node, "field").orElse(""));
            }
            if (status == 401) {
                return new UnauthorizedException(status, code, title, detail, properties);
            }
            if (status == 503) {
                Optional<Duration> retryAfter = retryAfter().or(() -> seconds(node.get("retryAfterSeconds")));
                return code.equals("STORE_UNAVAILABLE")
                        ? new StoreUnavailableException(status, code, title, detail, properties, retryAfter)
                        : new ServiceUnavailableException(status, code, title, detail, properties, retryAfter);
            }
            return new ProblemException(status, code, title, detail, properties);
        }

        /** A problem answer's JSON, for the calls that read 429 and 502 as results. */
        Optional<JsonNode> problemJson() {
            return isProblem() ? parse() : Optional.empty();
        }

        UnexpectedResponseException unexpected(String message) {
            return new UnexpectedResponseException(message, status, excerpt());
        }

        private boolean isProblem() {
            return headers.firstValue("Content-Type").map(type -> type.startsWith("application/problem+json")
                    || type.startsWith("application/json")).orElse(false);
        }

        private Optional<JsonNode> parse() {
            try {
                JsonNode node = body.isEmpty() ? MissingNode.getInstance() : json.readTree(body);
                return node.isObject() ? Optional.of(node) : Optional.empty();
            } catch (JacksonException e) {
                return Optional.empty();
            }
        }

        private String excerpt() {
            return body.length() <= BODY_EXCERPT ? body : body.substring(0, BODY_EXCERPT) + "...";
        }

        private String excerptSuffix() {
            return body.isBlank() ? "." : ": " + excerpt();
        }
    }

    static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isString() ? Optional.empty() : Optional.of(value.stringValue());
    }

    private static Optional<Duration> seconds(JsonNode value) {
        return value != null && value.canConvertToLong() && value.asLong() >= 0
                ? Optional.of(Duration.ofSeconds(value.asLong())) : Optional.empty();
    }

    /** {@code Retry-After} as delta-seconds or as an HTTP date (RFC 9110 §10.2.3); a date in the past is 0. */
    static Optional<Duration> parseRetryAfter(String value) {
        String trimmed = value.trim();
        if (trimmed.matches("[0-9]{1,9}")) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(trimmed)));
        }
        try {
            Instant at = ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(Instant.now(), at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** One path segment: an id, percent-encoded but for the characters ids are made of. */
    static String segment(String value) {
        StringBuilder encoded = new StringBuilder();
        boolean onlyDots = !value.isEmpty() && value.chars().allMatch(c -> c == '.');
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '~' || c == '@' || c == ':' || c == '+' || (c == '.' && !onlyDots);
            if (plain) {
                encoded.append(c);
            } else {
                encoded.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return encoded.toString();
    }

    /** One query parameter, {@code &name=value}, form-encoded. */
    static String parameter(String name, String value) {
        return "&" + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}

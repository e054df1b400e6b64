package dev.verificationservice.server.openapi;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.Response;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A validating proxy, as one would put in front of the service: it forwards every request to the service as it
 * came and the answer back as it went, and checks both against the service's own OpenAPI document
 * ({@code /v3/api-docs}, fetched from the service when the proxy starts) with Atlassian's
 * swagger-request-validator: the operation exists, its parameters, headers and body match, the answer's status
 * is documented for it, and the answer's headers and body match that status's schema.
 *
 * <p>What it found is kept per exchange: {@link Exchange#requestProblems()} (the request breaks the document, as
 * a deliberately bad request does) and {@link Exchange#answerProblems()} (the answer breaks it: always a defect).
 */
public final class ValidatingProxy implements AutoCloseable {

    /** One request through the proxy and what the validator said about it. */
    public record Exchange(String method, String target, int status, String answerBody, List<String> requestProblems,
                           List<String> answerProblems) {
        @Override
        public String toString() {
            return method + " " + target + " -> " + status;
        }
    }

    /** Headers the JDK client sets itself (or refuses), and hop-by-hop headers a proxy does not pass on. */
    private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "content-length", "expect",
            "upgrade", "transfer-encoding", "keep-alive");

    private final HttpServer server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();
    private final String upstream;
    private final OpenApiInteractionValidator validator;
    private final List<Exchange> exchanges = Collections.synchronizedList(new ArrayList<>());

    private ValidatingProxy(int upstreamPort, String document) throws IOException {
        this.upstream = "http://127.0.0.1:" + upstreamPort;
        this.validator = OpenApiInteractionValidator.createForInlineApiSpecification(document).build();
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::forward);
        server.start();
    }

    /** A proxy in front of the service on this port, checking against the document the service serves now. */
    public static ValidatingProxy start(int upstreamPort) throws IOException, InterruptedException {
        HttpResponse<String> document = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + upstreamPort + "/v3/api-docs")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (document.statusCode() != 200) {
            throw new IllegalStateException("GET /v3/api-docs answered " + document.statusCode());
        }
        return new ValidatingProxy(upstreamPort, document.body());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<Exchange> exchanges() {
        synchronized (exchanges) {
            return List.copyOf(exchanges);
        }
    }

    /** What the validator says about an answer to a request, without sending anything: for tests of the proxy itself. */
    public List<String> checkAnswer(String method, String target, int status, Map<String, String> answerHeaders,
                                    String answerBody) {
        Map<String, List<String>> answer = new LinkedHashMap<>();
        answerHeaders.forEach((name, value) -> answer.put(name, List.of(value)));
        return messages(validator.validateResponse(pathOf(target), Request.Method.valueOf(method),
                response(status, answer, answerBody)));
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            byte[] body = exchange.getRequestBody().readAllBytes();
            HttpRequest.Builder outgoing = HttpRequest.newBuilder(URI.create(upstream + target))
                    .timeout(Duration.ofSeconds(30))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                    values.forEach(value -> outgoing.header(name, value));
                }
            });
            HttpResponse<byte[]> answer = client.send(outgoing.build(), HttpResponse.BodyHandlers.ofByteArray());
            answer.headers().map().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] answerBody = answer.body();
            // Checked before the answer goes back: when the client has it, the exchange is on record.
            record(method, target, exchange.getRequestHeaders(), body, answer, answerBody);
            exchange.sendResponseHeaders(answer.statusCode(), answerBody.length == 0 ? -1 : answerBody.length);
            if (answerBody.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answerBody);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private void record(String method, String target, Map<String, List<String>> requestHeaders, byte[] body,
                        HttpResponse<byte[]> answer, byte[] answerBody) {
        Request request = request(method, target, requestHeaders, body);
        Response response = response(answer.statusCode(), answer.headers().map(),
                new String(answerBody, StandardCharsets.UTF_8));
        List<String> requestProblems = messages(validator.validateRequest(request));
        List<String> answerProblems = messages(validator.validateResponse(pathOf(target), request.getMethod(), response));
        exchanges.add(new Exchange(method, target, answer.statusCode(), new String(answerBody, StandardCharsets.UTF_8),
                requestProblems, answerProblems));
    }

    private static Request request(String method, String target, Map<String, List<String>> headers, byte[] body) {
        SimpleRequest.Builder builder = new SimpleRequest.Builder(method, pathOf(target));
        int question = target.indexOf('?');
        if (question >= 0) {
            Map<String, List<String>> query = new LinkedHashMap<>();
            for (String pair : target.substring(question + 1).split("&")) {
                int equals = pair.indexOf('=');
                String name = decode(equals < 0 ? pair : pair.substring(0, equals));
                query.computeIfAbsent(name, key -> new ArrayList<>()).add(equals < 0 ? "" : decode(pair.substring(equals + 1)));
            }
            query.forEach(builder::withQueryParam);
        }
        headers.forEach(builder::withHeader);
        if (body.length > 0) {
            builder.withBody(new String(body, StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static Response response(int status, Map<String, List<String>> headers, String body) {
        SimpleResponse.Builder builder = SimpleResponse.Builder.status(status);
        headers.forEach((name, values) -> {
            if (!name.startsWith(":")) {
                builder.withHeader(name, values);
            }
        });
        if (!body.isEmpty()) {
            builder.withBody(body);
        }
        return builder.build();
    }

    private static String pathOf(String target) {
        int question = target.indexOf('?');
        return decode(question < 0 ? target : target.substring(0, question));
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** Every message but the ones the validator itself ranks as information. */
    private static List<String> messages(ValidationReport report) {
        return report.getMessages().stream()
                .filter(message -> message.getLevel() == ValidationReport.Level.ERROR
                        || message.getLevel() == ValidationReport.Level.WARN)
                .map(message -> message.getLevel() + " " + message.getKey() + ": " + message.getMessage())
                .toList();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

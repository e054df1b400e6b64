package dev.verificationservice.server.openapi;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.Response;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The service's own OpenAPI document ({@code /v3/api-docs}, fetched from the running service) as a checker of
 * real traffic, with Atlassian's swagger-request-validator: the operation exists, its parameters, headers and
 * body match, the answer's status is documented for it, and the answer's headers and body match that status's
 * schema (answers are treated as closed: a member the document does not have is reported).
 *
 * <p>Every exchange checked is kept with what was found: {@link Exchange#requestProblems()} (the request breaks the
 * document, as a deliberately bad request does) and {@link Exchange#answerProblems()} (the answer breaks it: a
 * defect of the service or of the document).
 */
public final class ApiContract {

    /** One request and its answer, and what the validator said about each. */
    public record Exchange(String method, String target, int status, String answerBody, List<String> requestProblems,
                           List<String> answerProblems) {
        /** False when the document has no such operation (health, metrics, a wrong path or method on purpose). */
        public boolean documented() {
            return answerProblems.stream().noneMatch(problem -> problem.contains(".path.missing")
                    || problem.contains(".operation.notAllowed"));
        }

        @Override
        public String toString() {
            return method + " " + target + " -> " + status;
        }
    }

    private final OpenApiInteractionValidator validator;
    private final List<Exchange> exchanges = Collections.synchronizedList(new ArrayList<>());

    private ApiContract(String document) {
        this.validator = OpenApiInteractionValidator.createForInlineApiSpecification(document).build();
    }

    /** The document the service on this port serves now. */
    public static ApiContract of(int port) throws IOException, InterruptedException {
        HttpResponse<String> document = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/v3/api-docs")).build(), HttpResponse.BodyHandlers.ofString());
        if (document.statusCode() != 200) {
            throw new IllegalStateException("GET /v3/api-docs answered " + document.statusCode());
        }
        return new ApiContract(document.body());
    }

    public List<Exchange> exchanges() {
        synchronized (exchanges) {
            return List.copyOf(exchanges);
        }
    }

    /** Checks one request and its answer against the document, and keeps the exchange. */
    public Exchange check(String method, String target, Map<String, List<String>> requestHeaders, byte[] body,
                          int status, Map<String, List<String>> answerHeaders, byte[] answerBody) {
        String answerText = new String(answerBody, StandardCharsets.UTF_8);
        Exchange exchange;
        if (Arrays.stream(Request.Method.values()).noneMatch(known -> known.name().equals(method))) {
            // A method no OpenAPI document can hold (CONNECT, a lower-case get, FOO): no operation of the document.
            exchange = new Exchange(method, target, status, answerText, List.of(),
                    List.of("validation.request.operation.notAllowed: " + method));
        } else {
            List<String> requestProblems;
            try {
                requestProblems = messages(validator.validateRequest(request(method, target, requestHeaders, body)));
            } catch (RuntimeException e) {
                // A request the validator cannot read (two charsets in its Content-Type): broken, as the service said.
                requestProblems = List.of("validation.request.unreadable: " + e.getMessage());
            }
            List<String> answerProblems;
            try {
                answerProblems = messages(validator.validateResponse(pathOf(target), Request.Method.valueOf(method),
                        response(status, answerHeaders, answerText)));
            } catch (IllegalArgumentException e) {
                // A target the validator cannot even decode (a malformed escape sent on purpose): no operation.
                answerProblems = List.of("validation.request.path.missing: " + e.getMessage());
            }
            exchange = new Exchange(method, target, status, answerText, requestProblems, answerProblems);
        }
        exchanges.add(exchange);
        return exchange;
    }

    /** What the validator says about an answer, without keeping it: for tests of the checker itself. */
    public List<String> checkAnswer(String method, String target, int status, Map<String, String> answerHeaders,
                                    String answerBody) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        answerHeaders.forEach((name, value) -> headers.put(name, List.of(value)));
        return messages(validator.validateResponse(pathOf(target), Request.Method.valueOf(method),
                response(status, headers, answerBody)));
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
        if (body != null && body.length > 0) {
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
        try {
            return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text; // a malformed escape sent on purpose: checked as it is
        }
    }

    /** Every message but the ones the validator itself ranks as information. */
    private static List<String> messages(ValidationReport report) {
        return report.getMessages().stream()
                .filter(message -> message.getLevel() == ValidationReport.Level.ERROR
                        || message.getLevel() == ValidationReport.Level.WARN)
                .map(message -> message.getLevel() + " " + message.getKey() + ": " + message.getMessage())
                .toList();
    }
}

package dev.verificationservice.server.errors;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

/**
 * RFC 9457 problem details as this API writes them: {@code type}, {@code title}, {@code status},
 * {@code detail}, plus {@code code} (stable, machine-readable) and, for bad input, {@code field}.
 *
 * <p>Inside Spring MVC a problem is a {@link ProblemDetail} built by {@link #of}; outside it (filters, the
 * container's error valve) {@link #write} is the one writer, and {@link #json} the one serializer. Which
 * {@code code} an answer made by the container (not by a controller) gets is decided by
 * {@link #codeForContainerStatus}, in one place.
 */
public final class Problems {

    /** Documentation of every problem code, relative to the service. */
    public static final String TYPE_BASE = "https://verification-service.dev/problems/";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Problems() {
    }

    public static ProblemDetail of(HttpStatus status, String code, String detail, Map<String, Object> properties) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(typeOf(code)));
        problem.setTitle(status.getReasonPhrase());
        problem.setProperty("code", code);
        properties.forEach(problem::setProperty);
        return problem;
    }

    public static ProblemDetail invalidInput(String field, String detail) {
        return of(HttpStatus.BAD_REQUEST, "INVALID_INPUT", detail, Map.of("field", field));
    }

    /**
     * The code of an answer the container made without a controller: a request it refused, a path nothing
     * serves, a method nothing allows, or a failure during dispatch.
     */
    public static String codeForContainerStatus(int status) {
        return switch (status) {
            case 400 -> "BAD_REQUEST";
            case 404 -> "NOT_FOUND";
            case 405 -> "METHOD_NOT_ALLOWED";
            default -> status >= 500 ? "INTERNAL_ERROR" : "REQUEST_REFUSED";
        };
    }

    /** A problem about bad input outside Spring MVC, naming the field (or header) at fault. */
    public static void write(HttpServletResponse response, HttpStatus status, String code, String detail, String field)
            throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(json(status.value(), code, detail, field));
    }

    /** Writes a problem answer outside Spring MVC (filters, which answer before a controller runs). */
    public static void write(HttpServletResponse response, HttpStatus status, String code, String detail)
            throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(json(status.value(), code, detail));
    }

    /** The problem as JSON text: what {@link #write} sends, and what the container's error valve reports. */
    static String json(int status, String code, String detail) {
        return json(status, code, detail, null);
    }

    private static String json(int status, String code, String detail, String field) {
        HttpStatus resolved = HttpStatus.resolve(status);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", typeOf(code));
        body.put("title", resolved == null ? "Error" : resolved.getReasonPhrase());
        body.put("status", status);
        body.put("detail", detail);
        body.put("code", code);
        if (field != null) {
            body.put("field", field);
        }
        return JSON.writeValueAsString(body);
    }

    private static String typeOf(String code) {
        return TYPE_BASE + code.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}

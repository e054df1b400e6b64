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
 */
public final class Problems {

    /** Documentation of every problem code, relative to the service. */
    public static final String TYPE_BASE = "https://verification-service.dev/problems/";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Problems() {
    }

    public static ProblemDetail of(HttpStatus status, String code, String detail, Map<String, Object> properties) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(TYPE_BASE + code.toLowerCase().replace('_', '-')));
        problem.setTitle(status.getReasonPhrase());
        problem.setProperty("code", code);
        properties.forEach(problem::setProperty);
        return problem;
    }

    public static ProblemDetail invalidInput(String field, String detail) {
        return of(HttpStatus.BAD_REQUEST, "INVALID_INPUT", detail, Map.of("field", field));
    }

    /** For filters, which answer before Spring MVC runs. */
    public static void write(HttpServletResponse response, HttpStatus status, String code, String detail)
            throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(json(status.value(), status.getReasonPhrase(), code, detail));
    }

    /** The problem as JSON text, for writers outside Spring MVC (filters, the container's error valve). */
    public static String json(int status, String title, String code, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", TYPE_BASE + code.toLowerCase().replace('_', '-'));
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.put("code", code);
        return JSON.writeValueAsString(body);
    }
}

package dev.verificationservice.server.fuzz;

import dev.verificationservice.server.fuzz.HttpSender.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What every answer must be, whatever was asked: never a 5xx (the store is healthy and the development outbox
 * delivers, so nothing may fail) and every 4xx an {@code application/problem+json} with the members the API
 * writes ({@code type}, {@code title}, {@code status} equal to the HTTP status, a non-empty {@code code} and, when
 * present, a non-empty {@code field}).
 */
final class Oracle {

    /** Answers that refuse the input: after one of them the table must be exactly as before (429 writes an audit entry). */
    static final Set<Integer> REFUSALS = Set.of(400, 401, 403, 404, 405, 406, 413, 415, 422);

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One broken rule; {@code rule} is stable (it groups failures), {@code detail} says what was seen. */
    record Violation(String rule, String detail) {
        @Override
        public String toString() {
            return rule + ": " + detail;
        }
    }

    private Oracle() {
    }

    static List<Violation> check(FuzzRequest request, Answer answer) {
        List<Violation> violations = new ArrayList<>();
        int status = answer.status();
        if (status < 0) {
            violations.add(new Violation("NO_ANSWER", answer.error()));
            return violations;
        }
        if (status >= 500) {
            violations.add(new Violation("SERVER_ERROR", "answered " + status));
        }
        if (status >= 400 && status < 500) {
            String type = answer.header("Content-Type");
            if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/problem+json")) {
                violations.add(new Violation("NOT_PROBLEM_JSON", status + " with Content-Type " + type));
            }
            if (!request.method().equals("HEAD")) {
                checkProblemBody(status, answer, violations);
            }
        }
        return violations;
    }

    private static void checkProblemBody(int status, Answer answer, List<Violation> violations) {
        JsonNode problem;
        try {
            problem = JSON.readTree(answer.body());
        } catch (JacksonException e) {
            violations.add(new Violation("PROBLEM_NOT_JSON", status + " with a body that is not JSON"));
            return;
        }
        if (problem == null || !problem.isObject()) {
            violations.add(new Violation("PROBLEM_NOT_JSON", status + " with a body that is not a JSON object"));
            return;
        }
        JsonNode statusMember = problem.get("status");
        if (statusMember == null || !statusMember.isIntegralNumber() || statusMember.asInt() != status) {
            violations.add(new Violation("PROBLEM_STATUS_MISMATCH", "HTTP " + status + " but \"status\": " + statusMember));
        }
        for (String member : List.of("type", "title")) {
            JsonNode text = problem.get(member);
            if (text == null || !text.isString() || text.stringValue().isBlank()) {
                violations.add(new Violation("PROBLEM_" + member.toUpperCase(Locale.ROOT) + "_MISSING",
                        status + " with \"" + member + "\": " + text));
            }
        }
        JsonNode code = problem.get("code");
        if (code == null || !code.isString() || code.stringValue().isBlank()) {
            violations.add(new Violation("PROBLEM_CODE_MISSING", status + " with \"code\": " + code));
        }
        if (problem.has("field")) {
            JsonNode field = problem.get("field");
            if (!field.isString() || field.stringValue().isBlank()) {
                violations.add(new Violation("PROBLEM_FIELD_EMPTY", status + " with \"field\": " + field));
            }
        }
    }

    /** The problem's {@code code}, for grouping and the report; empty when there is none. */
    static String problemCode(Answer answer) {
        try {
            JsonNode problem = JSON.readTree(answer.body());
            return problem != null && problem.has("code") ? problem.get("code").asString("") : "";
        } catch (JacksonException e) {
            return "";
        }
    }

    static JsonNode jsonOrNull(Answer answer) {
        String type = answer.header("Content-Type");
        if (type == null || !type.contains("json") || answer.body().length == 0) {
            return null;
        }
        try {
            return JSON.readTree(answer.body());
        } catch (JacksonException e) {
            return null;
        }
    }
}

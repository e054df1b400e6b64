package dev.verificationservice.client;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** Sending, checking and verifying codes: {@code /v1/codes}. Get it from {@link VerificationClient#codes()}. */
public final class CodesClient {

    private final Transport transport;

    CodesClient(Transport transport) {
        this.transport = transport;
    }

    /**
     * {@code POST /v1/codes}: sends a new code (and invalidates the user's earlier ones of the type).
     * A refusal by a limit (429) and a failed delivery (502) are results; bad input throws
     * {@link InvalidInputException} naming the field. Never retried unless the {@link RetryPolicy} names
     * {@link Operation#SEND_CODE}.
     */
    public SendResult send(SendCodeRequest request) {
        Objects.requireNonNull(request, "request");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("userId", request.userId());
        body.put("codeType", request.codeType().name());
        body.put("deliveryMethod", request.deliveryMethod().name());
        body.put("deliveryTarget", request.deliveryTarget());
        request.format().ifPresent(format -> body.put("format", format.name()));
        request.codeLength().ifPresent(length -> body.put("codeLength", length));
        if (request.humanVerified()) {
            body.put("humanVerified", true);
        }
        putClient(body, request.client());
        Transport.Answer answer = transport.post(Operation.SEND_CODE, "/v1/codes", body);
        if (answer.status() == 429 || answer.status() == 502) {
            Optional<JsonNode> problem = answer.problemJson();
            if (problem.isPresent() && answer.status() == 429) {
                return rateLimited(answer, problem.get());
            }
            if (problem.isPresent() && "DELIVERY_FAILED".equals(Transport.text(problem.get(), "code").orElse(""))) {
                JsonNode node = problem.get();
                // The method the request named: the answer names the same one.
                return new SendResult.DeliveryFailed(request.deliveryMethod(),
                        Transport.text(node, "maskedTarget").orElse(""), Transport.text(node, "detail").orElse(""));
            }
        }
        Fields sent = answer.json();
        return new SendResult.Sent(sent.enumValue("codeType", CodeType.class),
                sent.enumValue("deliveryMethod", DeliveryMethod.class), sent.enumValue("format", CodeFormat.class),
                sent.text("maskedTarget"), sent.instant("expiresAt"));
    }

    private static SendResult.RateLimited rateLimited(Transport.Answer answer, JsonNode problem) {
        Optional<Duration> retryAfter = answer.retryAfter().or(() -> {
            JsonNode seconds = problem.get("retryAfterSeconds");
            return seconds != null && seconds.canConvertToLong()
                    ? Optional.of(Duration.ofSeconds(seconds.asLong())) : Optional.empty();
        });
        Optional<Instant> resetsAt = Transport.text(problem, "resetsAt").flatMap(text -> {
            try {
                return Optional.of(Instant.parse(text));
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        });
        return new SendResult.RateLimited(Transport.text(problem, "action").orElse(""),
                retryAfter.orElse(Duration.ZERO), resetsAt, Transport.text(problem, "detail").orElse(""));
    }

    /**
     * {@code POST /v1/codes/check}: whether the code would verify, without using it up (for a page that shows
     * a link's target before the person confirms). A failed check counts as a failed attempt.
     */
    public CheckResult check(PresentedCode code) {
        Fields answer = transport.post(Operation.CHECK_CODE, "/v1/codes/check", body(code)).json();
        if (!answer.bool("valid")) {
            return new CheckResult.Invalid(InvalidCodeReason.of(answer.text("reason")));
        }
        return new CheckResult.Valid(answer.text("userId"), answer.enumValue("codeType", CodeType.class),
                answer.optionalInstant("expiresAt"));
    }

    /**
     * {@code POST /v1/codes/verify}: uses the code up if it is valid; of any number of concurrent attempts
     * exactly one is valid. Never retried unless the {@link RetryPolicy} names {@link Operation#VERIFY_CODE}.
     */
    public VerifyResult verify(PresentedCode code) {
        Fields answer = transport.post(Operation.VERIFY_CODE, "/v1/codes/verify", body(code)).json();
        if (!answer.bool("valid")) {
            return new VerifyResult.Invalid(InvalidCodeReason.of(answer.text("reason")));
        }
        return new VerifyResult.Valid(answer.text("userId"), answer.enumValue("codeType", CodeType.class));
    }

    private static Map<String, Object> body(PresentedCode code) {
        Objects.requireNonNull(code, "code");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code.code());
        code.userId().ifPresent(userId -> body.put("userId", userId));
        code.codeType().ifPresent(type -> body.put("codeType", type.name()));
        putClient(body, code.client());
        return body;
    }

    static void putClient(Map<String, Object> body, ClientContext client) {
        client.ipAddress().ifPresent(ip -> body.put("ipAddress", ip));
        client.userAgent().ifPresent(agent -> body.put("userAgent", agent));
        client.deviceId().ifPresent(device -> body.put("deviceId", device));
    }
}

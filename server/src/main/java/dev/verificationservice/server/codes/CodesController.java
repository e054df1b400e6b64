package dev.verificationservice.server.codes;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.delivery.RoutingCodeSender;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.server.security.HumanVerifiedKeys;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.spring.metrics.VerificationMetrics;
import dev.verificationservice.validation.InvalidInputException;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Sending, checking and verifying codes: {@code /v1/codes}. */
@RestController
@RequestMapping(path = "/v1/codes", produces = MediaType.APPLICATION_JSON_VALUE)
public class CodesController {

    /** {@code POST /v1/codes}. Enum values are taken as text so that a wrong one is a 400 naming its field. */
    public record SendCodeBody(@Schema(requiredMode = REQUIRED) String userId,
                               @Schema(requiredMode = REQUIRED) String codeType,
                               @Schema(requiredMode = REQUIRED) String deliveryMethod,
                               @Schema(requiredMode = REQUIRED) String deliveryTarget,
                               String format, Long codeLength, String ipAddress, String userAgent, String deviceId,
                               @Schema(description = LOCALE, maxLength = Requests.MAX_LOCALE_LENGTH, example = "pt-BR")
                               String locale,
                               @Schema(description = CONTEXT, maxLength = CodeService.MAX_CONTEXT_LENGTH,
                                       example = "Pay 120.00 EUR to ACME")
                               String context,
                               @Schema(description = HUMAN_VERIFIED) Boolean humanVerified) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SendCodeResponse(@Schema(requiredMode = REQUIRED) String codeType,
                                   @Schema(requiredMode = REQUIRED) String deliveryMethod,
                                   @Schema(requiredMode = REQUIRED) String format,
                                   @Schema(requiredMode = REQUIRED) String maskedTarget,
                                   @Schema(requiredMode = REQUIRED) String expiresAt,
                                   @Schema(requiredMode = REQUIRED, description = "The language the message was "
                                           + "written in (BCP 47): the requested one, or the nearest one with templates", example = "pt-BR")
                                   String locale) {
    }

    /** {@code POST /v1/codes/check} and {@code /verify}. */
    public record CodeBody(@Schema(requiredMode = REQUIRED) String code, String userId, String codeType,
                           String ipAddress, String userAgent,
                           String deviceId,
                           @Schema(description = "The context the code was sent with, if any: a code sent with a "
                                   + "context verifies only with the same context",
                                   maxLength = CodeService.MAX_CONTEXT_LENGTH, example = "Pay 120.00 EUR to ACME")
                           String context) {
        @Override
        public String toString() {
            return "CodeBody[code=<redacted>, userId=" + userId + ", codeType=" + codeType + "]";
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CheckResponse(@Schema(requiredMode = REQUIRED) boolean valid, String reason, String userId,
                                String codeType, String expiresAt) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record VerifyResponse(@Schema(requiredMode = REQUIRED) boolean valid, String reason, String userId,
                                 String codeType) {
    }

    static final String LOCALE = "The language of the message (BCP 47, such as en, pt-BR, de-AT). Falls back along "
            + "pt-BR, pt, English to the nearest language with templates. Without it, an SMS is written in the language "
            + "of the number's country and an email in English";
    static final String CONTEXT = "What the code approves, shown in the message (\"This code approves: ...\"): "
            + "printable text of at most 200 characters, without bidi overrides or other invisible format characters "
            + "(U+202E, U+200B ...). The code then verifies only with the same context "
            + "(dynamic linking); the context is never stored or returned, only its HMAC is kept";

    static final String HUMAN_VERIFIED = "The caller checked a human itself (its own CAPTCHA): an SMS then passes "
            + "its number range's open breaker (SMS_RANGE_BLOCKED), and CODE_SENT records humanVerified. Only from an "
            + "API key listed in VERIFICATION_HUMAN_VERIFIED_KEYS; from another key it is a 403 naming humanVerified";

    private final Verification verification;
    private final RoutingCodeSender channels;
    private final VerificationMetrics metrics;
    private final HumanVerifiedKeys humanVerifiedKeys;

    public CodesController(Verification verification, DeliveryChannels channels,
                           VerificationMetrics metrics, HumanVerifiedKeys humanVerifiedKeys) {
        this.verification = verification;
        this.channels = channels.sender();
        this.metrics = metrics;
        this.humanVerifiedKeys = humanVerifiedKeys;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.ACCEPTED)
    public SendCodeResponse send(@RequestBody SendCodeBody body, HttpServletRequest request) {
        Requests.body(body);
        boolean humanVerified = Boolean.TRUE.equals(body.humanVerified());
        if (humanVerified && !humanVerifiedKeys.permits(request)) {
            throw new ApiProblem(HttpStatus.FORBIDDEN, "FORBIDDEN", "humanVerified: this API key may not vouch for "
                    + "a human; the operator permits a key by listing its id in VERIFICATION_HUMAN_VERIFIED_KEYS.",
                    Map.of("field", "humanVerified"));
        }
        CodeType type = publicType(Requests.requiredEnum(CodeType.class, "codeType", body.codeType()));
        DeliveryMethod method = Requests.requiredEnum(DeliveryMethod.class, "deliveryMethod", body.deliveryMethod());
        Optional<CodeFormat> format = Requests.optionalEnum(CodeFormat.class, "format", body.format());
        if (!channels.supports(method)) {
            throw new InvalidInputException("deliveryMethod", method + " delivery is not configured on this server; "
                    + "configured: " + channels.methods());
        }
        ClientContext client = ClientContext.of(body.ipAddress(), body.userAgent(), body.deviceId());
        Optional<Locale> locale = Requests.optionalLocale("locale", body.locale());
        IssueResult result = verification.codes().issue(new CodeRequest(body.userId(), type, method,
                body.deliveryTarget(), format, codeLength(body.codeLength()), client, locale,
                Optional.ofNullable(body.context()), humanVerified));
        if (result instanceof IssueResult.RangeBlocked blocked) {
            metrics.rateLimited(SmsSignals.BREAKER_ACTION);
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("action", SmsSignals.BREAKER_ACTION);
            properties.put("smsRange", blocked.smsRange());
            properties.put("scope", blocked.scope().detail());
            properties.put("country", blocked.country());
            properties.put("resetsAt", JsonTimes.format(blocked.until()));
            properties.put("retryAfterSeconds", blocked.retryAfterSeconds());
            String where = blocked.scope() == SmsSignals.Scope.COUNTRY ? "numbers of " + blocked.country()
                    : "numbers of " + blocked.smsRange();
            throw new ApiProblem(HttpStatus.TOO_MANY_REQUESTS, "SMS_RANGE_BLOCKED", "Many codes went to " + where
                    + " and few were verified, so SMS to them are paused until "
                    + properties.get("resetsAt") + ". Offer email, or check a human (CAPTCHA) and send again with "
                    + "humanVerified.", properties);
        }
        if (result instanceof IssueResult.RateLimited limited) {
            metrics.rateLimited(limited.action());
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("action", limited.action());
            properties.put("resetsAt", JsonTimes.format(limited.resetsAt()));
            properties.put("retryAfterSeconds", limited.retryAfterSeconds());
            if (limited.action().equals("SMS_BUDGET")) {
                throw new ApiProblem(HttpStatus.TOO_MANY_REQUESTS, "SMS_BUDGET_EXHAUSTED", "The service's SMS budget "
                        + "is spent until " + properties.get("resetsAt") + "; email codes still work.", properties);
            }
            throw new ApiProblem(HttpStatus.TOO_MANY_REQUESTS, "RATE_LIMITED", "Too many requests for "
                    + limited.action() + "; try again after " + properties.get("resetsAt") + ".", properties);
        }
        if (result instanceof IssueResult.DeliveryFailed failed) {
            metrics.deliveryFailed(type.name(), method.name());
            throw new ApiProblem(HttpStatus.BAD_GATEWAY, "DELIVERY_FAILED",
                    "The code could not be delivered by " + failed.deliveryMethod() + " to " + failed.maskedTarget()
                            + "; it has been invalidated. Check the target and the channel, then request a new code.",
                    Map.of("deliveryMethod", failed.deliveryMethod().name(), "maskedTarget", failed.maskedTarget()));
        }
        IssueResult.Issued issued = (IssueResult.Issued) result;
        metrics.codeSent(type.name(), method.name());
        return new SendCodeResponse(issued.codeType().name(), issued.deliveryMethod().name(), issued.format().name(),
                issued.maskedTarget(), JsonTimes.format(issued.expiresAt()), issued.locale().toLanguageTag());
    }

    @PostMapping(path = "/check", consumes = MediaType.APPLICATION_JSON_VALUE)
    public CheckResponse check(@RequestBody CodeBody body) {
        VerificationResult result = verification.codes().check(verifyRequest(body));
        record(result, false);
        if (result instanceof VerificationResult.Valid valid) {
            return new CheckResponse(true, null, valid.userId(), valid.codeType().name(),
                    valid.expiresAt().map(JsonTimes::format).orElse(null));
        }
        return new CheckResponse(false, ((VerificationResult.Invalid) result).reason().name(), null, null, null);
    }

    @PostMapping(path = "/verify", consumes = MediaType.APPLICATION_JSON_VALUE)
    public VerifyResponse verify(@RequestBody CodeBody body) {
        VerificationResult result = verification.codes().verify(verifyRequest(body));
        record(result, true);
        if (result instanceof VerificationResult.Valid valid) {
            return new VerifyResponse(true, null, valid.userId(), valid.codeType().name());
        }
        return new VerifyResponse(false, ((VerificationResult.Invalid) result).reason().name(), null, null);
    }

    private static Optional<Integer> codeLength(Long value) {
        if (value == null) {
            return Optional.empty();
        }
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new InvalidInputException("codeLength", "must be between " + CodeFormat.MIN_NUMERIC_LENGTH + " and "
                    + CodeFormat.MAX_NUMERIC_LENGTH);
        }
        return Optional.of(value.intValue());
    }

    private static VerifyRequest verifyRequest(CodeBody body) {
        Requests.body(body);
        // The core checks the context's form (a malformed one is a 400, not a failed attempt).
        return new VerifyRequest(body.code(), Optional.ofNullable(body.userId()),
                Requests.optionalEnum(CodeType.class, "codeType", body.codeType()).map(CodesController::publicType),
                ClientContext.of(body.ipAddress(), body.userAgent(), body.deviceId()), Optional.ofNullable(body.context()));
    }

    /** A type this API sends and verifies: a LOGIN code is only ever the embedding application's (CodeType). */
    private static CodeType publicType(CodeType type) {
        if (!type.publicApi()) {
            throw new InvalidInputException("codeType", type + " codes are sent and used only by the application "
                    + "they log in to (the Spring Boot starter's one-time-token login), never over this API; one of "
                    + Arrays.stream(CodeType.values()).filter(CodeType::publicApi).toList());
        }
        return type;
    }

    private void record(VerificationResult result, boolean consumed) {
        if (result instanceof VerificationResult.Valid valid && consumed) {
            metrics.codeVerified(valid.codeType().name());
        } else if (result instanceof VerificationResult.Invalid invalid) {
            metrics.codeFailed(invalid.reason().name());
        }
    }
}

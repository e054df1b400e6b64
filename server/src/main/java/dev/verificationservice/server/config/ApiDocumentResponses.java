package dev.verificationservice.server.config;

import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.server.errors.RequestBodyLimitFilter;
import dev.verificationservice.server.idempotency.IdempotencyFilter;
import dev.verificationservice.server.security.ApiKeyFilter;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.http.HttpHeaders;

/**
 * Every answer of every operation in the OpenAPI document: the success springdoc finds, and each problem the
 * service can answer there (which filter or handler answers it is said in each description), all as
 * {@code application/problem+json} with the {@code Problem} schema; the {@code Retry-After} header of 409, 429
 * and 503; the {@code Idempotency-Key} request header and the {@code Idempotent-Replayed} answer header where
 * the service takes them.
 */
final class ApiDocumentResponses implements OpenApiCustomizer {

    /** The problems every operation can answer, before or after its controller runs. */
    private static final Map<String, String> EVERY_OPERATION = Map.of(
            "400", "INVALID_INPUT (with field), MALFORMED_JSON, MALFORMED_QUERY, MALFORMED_CONTENT_TYPE, or "
                    + "BAD_REQUEST / REQUEST_REFUSED (a path or request the web container refuses, such as a '..' "
                    + "segment)",
            "401", "UNAUTHORIZED: no key, or an unknown one",
            "403", "FORBIDDEN: a key of the other kind (an admin key on the application API, or an application key "
                    + "on the operator API); the detail says which key is needed",
            "404", "NOT_FOUND: no endpoint has this exact path (a doubled '/', an empty path parameter or one that "
                    + "holds a '/')",
            "406", "NOT_ACCEPTABLE: the Accept header allows no JSON answer, or cannot be parsed",
            "413", "BODY_TOO_LARGE: the body is over " + RequestBodyLimitFilter.MAX_BODY_BYTES + " bytes",
            "415", "UNSUPPORTED_MEDIA_TYPE: a body that is not application/json (a multipart one, on every path)",
            "500", "INTERNAL_ERROR: a bug, logged with its stack trace; report it",
            "503", "STORE_UNAVAILABLE: the store did not answer in time; retry after Retry-After seconds");

    @Override
    public void customise(OpenAPI openApi) {
        openApi.getComponents().addSchemas(OpenApiConfiguration.PROBLEM, problemSchema());
        openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
            ApiResponses responses = operation.getResponses();
            EVERY_OPERATION.forEach((status, description) -> problem(responses, status, description));
            responses.get("401").addHeaderObject(HttpHeaders.WWW_AUTHENTICATE, new Header()
                    .description("Bearer realm=\"verification\"").schema(new StringSchema()));
            responses.get("503").addHeaderObject(HttpHeaders.RETRY_AFTER, retryAfter());
            if (path.startsWith(ApiKeyFilter.ADMIN_PREFIX + "/")) {
                problem(responses, "404", "NOT_FOUND: the operator API is off (no admin key is configured), or no "
                        + "endpoint has this exact path" + (path.startsWith(ApiKeyFilter.ADMIN_PREFIX + "/webhooks")
                        ? "; or WEBHOOKS_OFF: webhooks are off (VERIFICATION_WEBHOOKS_ENABLED)" : ""));
            }
            if (path.equals("/dev/outbox")) {
                problem(responses, "404", "OUTBOX_DISABLED: a delivery channel is configured, so there is no outbox; "
                        + "or NOT_FOUND: no endpoint has this exact path");
            }
            if (path.equals("/v1/codes") && method == PathItem.HttpMethod.POST) {
                problem(responses, "429", "RATE_LIMITED (with action, resetsAt and retryAfterSeconds), or "
                        + "SMS_BUDGET_EXHAUSTED: the service's SMS budget is spent (email still works), or "
                        + "SMS_RANGE_BLOCKED (with smsRange, scope range or country, country and resetsAt): codes to "
                        + "the number's range or country are seldom verified, so its SMS pause; offer email, or check "
                        + "a human and send with humanVerified")
                        .addHeaderObject(HttpHeaders.RETRY_AFTER, retryAfter());
                problem(responses, "502", "DELIVERY_FAILED (with deliveryMethod and maskedTarget): the code was "
                        + "invalidated; check the target and the channel, then request a new code");
            }
            if (path.startsWith("/v1/passkeys/") || path.startsWith("/v1/users/{userId}/passkeys")) {
                problem(responses, "404", "PASSKEYS_OFF: no relying party is configured (VERIFICATION_PASSKEYS_RP_ID); "
                        + "or NOT_FOUND: no endpoint has this exact path");
            }
            if (path.equals("/v1/passkeys/registration/options")) {
                problem(responses, "409", "PASSKEY_REFUSED (reason CAP_REACHED, field userId): the user holds the "
                        + "most passkeys allowed; revoke one first");
            }
            if (path.equals("/v1/passkeys/registration") || path.equals("/v1/passkeys/sign-in")) {
                problem(responses, "409", "PASSKEY_REFUSED (with reason, field and check): the response was checked "
                        + "against what the service stores and refused (a challenge not open, a wrong origin, RP ID or "
                        + "signature, an unknown credential, a sign count gone backwards, the cap); nothing was "
                        + "stored but the refusal's audit entry and, for a sign-in, its counted attempt");
            }
            if (path.equals("/v1/passkeys/sign-in")) {
                problem(responses, "429", "PASSKEY_REFUSED with reason TOO_MANY_ATTEMPTS: too many failed assertions "
                        + "at VERIFY_PASSKEY (the counted-attempt rule); wait for the lock-out to end");
            }
            if (IdempotencyFilter.takesKey(path) && method == PathItem.HttpMethod.POST) {
                idempotent(operation, responses, IdempotencyFilter.SHOWN_ONCE_PATHS.contains(path));
            }
            if (path.equals("/v1/users/{userId}/recovery-codes") && method == PathItem.HttpMethod.POST) {
                problem(responses, "409", "NO_FACTOR: the user has no confirmed authenticator factor, so no recovery "
                        + "codes; or RECOVERY_CODES_CONFLICT: a simultaneous issue for the user came first and this one "
                        + "wrote nothing (the user's codes are that one's; send again for a new set); or " + IN_PROGRESS
                        + "; or " + ANSWER_VOID)
                        .addHeaderObject(HttpHeaders.RETRY_AFTER, retryAfter().required(false));
            }
        }));
    }

    private static final String IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS (with Retry-After): a request with this key is "
            + "still running; retry after Retry-After seconds with the same key";
    private static final String ANSWER_VOID = "IDEMPOTENT_ANSWER_VOID: the first answer to this key held a secret "
            + "shown once, which is not kept; send a new request without this key";

    /**
     * The {@code Idempotency-Key} header, its replay header and its problems; where a success may hold a secret
     * shown once, a replay may be a 409 without {@code Retry-After}.
     */
    private static void idempotent(Operation operation, ApiResponses responses, boolean shownOnce) {
        operation.addParametersItem(new HeaderParameter().name(IdempotencyFilter.HEADER).required(false)
                .description("Makes a retry safe: the same key with the same body within 24 hours answers the first "
                        + "answer again and does nothing else; scoped to the API key")
                .schema(new StringSchema().minLength(1).maxLength(255)
                        .pattern("^" + IdempotentRequests.KEY.pattern() + "$")));
        responses.forEach((status, response) -> {
            if (status.startsWith("2")) {
                response.addHeaderObject(IdempotencyFilter.REPLAYED_HEADER, new Header()
                        .description("true when this is the kept answer of an earlier request with the same key")
                        .schema(strings("true")));
            }
        });
        problem(responses, "409", shownOnce ? IN_PROGRESS + "; or " + ANSWER_VOID : IN_PROGRESS)
                .addHeaderObject(HttpHeaders.RETRY_AFTER, retryAfter().required(!shownOnce));
        problem(responses, "422", "IDEMPOTENCY_KEY_REUSED: this key was used for another request within 24 hours");
    }

    private static ApiResponse problem(ApiResponses responses, String status, String description) {
        Content content = new Content().addMediaType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + OpenApiConfiguration.PROBLEM)));
        ApiResponse response = new ApiResponse().description(description).content(content);
        responses.addApiResponse(status, response);
        return response;
    }

    private static Header retryAfter() {
        return new Header().required(true).description("Seconds to wait before retrying")
                .schema(new IntegerSchema().minimum(BigDecimal.ZERO));
    }

    /**
     * RFC 9457 problem details as {@code errors.Problems} writes them. Other members may follow the ones listed
     * (RFC 9457 extension members), so the schema allows them.
     */
    private static Schema<?> problemSchema() {
        return new ObjectSchema()
                .description("RFC 9457 problem details")
                .required(List.of("type", "title", "status", "code"))
                .addProperty("type", new StringSchema().format("uri")
                        .description("https://verification-service.dev/problems/<code in kebab case>"))
                .addProperty("title", new StringSchema().description("the HTTP status's reason phrase"))
                .addProperty("status", new IntegerSchema().minimum(BigDecimal.valueOf(400))
                        .maximum(BigDecimal.valueOf(599)).description("the HTTP status"))
                .addProperty("detail", new StringSchema().description("what went wrong and what to do next"))
                .addProperty("instance", new StringSchema().description("the request's path"))
                .addProperty("code", new StringSchema().pattern("^[A-Z][A-Z_]*$")
                        .description("stable, machine-readable: INVALID_INPUT, RATE_LIMITED, ... (see the README)"))
                .addProperty("field", new StringSchema().minLength(1)
                        .description("the request field (or header) at fault, for INVALID_INPUT"))
                .addProperty("action", new StringSchema().description("the limit reached, for RATE_LIMITED"))
                .addProperty("reason", new StringSchema().description("why, for PASSKEY_REFUSED"))
                .addProperty("check", new StringSchema().description("the check that failed, for PASSKEY_REFUSED"))
                .addProperty("resetsAt", new StringSchema().format("date-time")
                        .description("when the limit's window ends, for RATE_LIMITED and SMS_BUDGET_EXHAUSTED"))
                .addProperty("retryAfterSeconds", new IntegerSchema().minimum(BigDecimal.ZERO)
                        .description("the same as the Retry-After header"));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Schema<?> strings(String... values) {
        Schema schema = new StringSchema();
        schema.setEnum(List.of(values));
        return schema;
    }
}

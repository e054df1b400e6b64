package dev.verificationservice.server.admin;

import static dev.verificationservice.server.admin.AdminController.operatorKeyId;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.validation.InvalidInputException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Webhook endpoints over the operator API: register, list, delete, rotate the secret, enable again,
 * see and redo deliveries. Only an admin key reaches it ({@link ApiKeyFilter}); the rules (SSRF, event types, the
 * secret shown once) live in the core's {@link Webhooks}, this class only translates.
 */
@RestController
@RequestMapping(path = ApiKeyFilter.ADMIN_PREFIX + "/webhooks", produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "operator")
@SecurityRequirement(name = "adminKey")
public class WebhooksController {

    public record RegisterWebhookBody(@Schema(requiredMode = REQUIRED, example = "https://hooks.example.com/verification")
                                       String url,
                                       @Schema(description = "Event types to send, such as code.verified; "
                                               + "left out or empty: all") List<String> eventTypes,
                                       String description) {
    }

    /** An endpoint as operators see it: never a secret. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record WebhookEndpointView(@Schema(requiredMode = REQUIRED) String endpointId,
                               @Schema(requiredMode = REQUIRED) String url,
                               @Schema(requiredMode = REQUIRED, description = "Empty: every event type")
                               List<String> eventTypes,
                               String description,
                               @Schema(requiredMode = REQUIRED, allowableValues = {"ENABLED", "DISABLED"}) String status,
                               @Schema(requiredMode = REQUIRED) String createdAt,
                               String disabledReason, String failingSince,
                               @Schema(description = "Until then the secret before the last rotation signs too")
                               String previousSecretSignsUntil) {
        public static WebhookEndpointView of(WebhookEndpoint endpoint) {
            return new WebhookEndpointView(endpoint.endpointId(), endpoint.url().toString(),
                    endpoint.eventTypes().stream().sorted().toList(), endpoint.description().orElse(null),
                    endpoint.status().name(), JsonTimes.format(endpoint.createdAt()),
                    endpoint.disabledReason().orElse(null), endpoint.failingSince().map(JsonTimes::format).orElse(null),
                    endpoint.previousUntil().map(JsonTimes::format).orElse(null));
        }
    }

    /** The secret is in this answer and nowhere else, ever. */
    public record WebhookSecretResponse(@Schema(requiredMode = REQUIRED) String endpointId,
                                 @Schema(requiredMode = REQUIRED, description = "whsec_ and base64: sign checks with "
                                         + "its decoded bytes; shown once") String secret,
                                 @Schema(requiredMode = REQUIRED) WebhookEndpointView endpoint) {
        static WebhookSecretResponse of(Webhooks.Registration registration) {
            return new WebhookSecretResponse(registration.endpoint().endpointId(), registration.secret().text(),
                    WebhookEndpointView.of(registration.endpoint()));
        }

        @Override
        public String toString() {
            return "WebhookSecretResponse[endpointId=" + endpointId + ", secret=<redacted>]";
        }
    }

    public record WebhookEndpointsResponse(@Schema(requiredMode = REQUIRED) List<WebhookEndpointView> endpoints) {
    }

    public record WebhookDeletedResponse(@Schema(requiredMode = REQUIRED) String endpointId,
                                  @Schema(requiredMode = REQUIRED) boolean deleted) {
    }

    /** One event for one endpoint: what was sent when, and what came back. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record WebhookDeliveryView(@Schema(requiredMode = REQUIRED) String eventId,
                               @Schema(requiredMode = REQUIRED) String type,
                               @Schema(requiredMode = REQUIRED) String userId,
                               @Schema(requiredMode = REQUIRED) String occurredAt,
                               @Schema(requiredMode = REQUIRED, allowableValues = {"PENDING", "DELIVERED", "FAILED"})
                               String status,
                               @Schema(requiredMode = REQUIRED) int attempts,
                               @Schema(description = "The HTTP status of the last attempt, when one came")
                               Integer answerCode,
                               String lastAttemptAt, String nextAttemptAt, String lastError) {
        public static WebhookDeliveryView of(Delivery delivery) {
            return new WebhookDeliveryView(delivery.eventId(), delivery.event().type(), delivery.event().userId(),
                    JsonTimes.format(delivery.event().occurredAt()), delivery.status().name(), delivery.attempts(),
                    delivery.lastStatus().orElse(null), delivery.lastAttemptAt().map(JsonTimes::format).orElse(null),
                    delivery.nextAttemptAt().map(JsonTimes::format).orElse(null), delivery.lastError().orElse(null));
        }
    }

    public record WebhookDeliveriesResponse(@Schema(requiredMode = REQUIRED) List<WebhookDeliveryView> deliveries) {
    }

    public record WebhookRedeliverBody(@Schema(description = "With 'to': every delivery of events in [from, to]") String from,
                                String to,
                                @Schema(description = "Instead of from/to: one event by its webhook-id, also one the "
                                        + "endpoint never had while another endpoint's delivery of it is kept")
                                String eventId) {
    }

    public record WebhookRedeliveredResponse(@Schema(requiredMode = REQUIRED) int redelivered) {
    }

    /** Absent while webhooks are off ({@code VERIFICATION_WEBHOOKS_ENABLED}); every call then says so. */
    private final Optional<Webhooks> service;

    public WebhooksController(ObjectProvider<Webhooks> webhooks) {
        this.service = Optional.ofNullable(webhooks.getIfAvailable());
    }

    /** The operator's key id is checked first: without an admin key nothing, not even "off", is said. */
    private Webhooks webhooks(HttpServletRequest request) {
        operatorKeyId(request);
        return service.orElseThrow(() -> new ApiProblem(HttpStatus.NOT_FOUND, "WEBHOOKS_OFF", "Webhooks are off on "
                + "this service. On DynamoDB set VERIFICATION_ENCRYPTION_KEYS (endpoint secrets are stored sealed "
                + "under them), or set VERIFICATION_WEBHOOKS_ENABLED=true, and restart.", Map.of()));
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(summary = "Register an endpoint: https (http only to localhost); its whsec_ secret is in this answer "
            + "only")
    public WebhookSecretResponse register(@RequestBody RegisterWebhookBody body, HttpServletRequest request) {
        Webhooks webhooks = webhooks(request);
        Requests.body(body);
        return WebhookSecretResponse.of(webhooks.register(body.url(),
                body.eventTypes() == null ? List.of() : body.eventTypes(), Optional.ofNullable(body.description())));
    }

    @GetMapping
    @Operation(summary = "Every endpoint, enabled or disabled (never a secret)")
    public WebhookEndpointsResponse list(HttpServletRequest request) {
        return new WebhookEndpointsResponse(webhooks(request).list().stream().map(WebhookEndpointView::of)
                .toList());
    }

    @GetMapping("/{endpointId}")
    @Operation(summary = "One endpoint (never a secret)")
    public WebhookEndpointView get(@PathVariable String endpointId, HttpServletRequest request) {
        return WebhookEndpointView.of(webhooks(request).get(endpointId));
    }

    @DeleteMapping("/{endpointId}")
    @Operation(summary = "Delete an endpoint: nothing more is sent to it")
    public WebhookDeletedResponse delete(@PathVariable String endpointId, HttpServletRequest request) {
        webhooks(request).delete(endpointId);
        return new WebhookDeletedResponse(endpointId, true);
    }

    @PostMapping("/{endpointId}/rotate-secret")
    @Operation(summary = "A new secret, shown once; the old one keeps signing beside it for 24 hours")
    public WebhookSecretResponse rotateSecret(@PathVariable String endpointId, HttpServletRequest request) {
        return WebhookSecretResponse.of(webhooks(request).rotateSecret(endpointId));
    }

    @PostMapping("/{endpointId}/enable")
    @Operation(summary = "Enable an endpoint the relay disabled; events that failed meanwhile need a redelivery")
    public WebhookEndpointView enable(@PathVariable String endpointId, HttpServletRequest request) {
        return WebhookEndpointView.of(webhooks(request).enable(endpointId));
    }

    @GetMapping("/{endpointId}/deliveries")
    @Operation(summary = "Recent deliveries to the endpoint, newest first: event, status, answer code, time")
    public WebhookDeliveriesResponse deliveries(@PathVariable String endpointId,
                                         @RequestParam(required = false) String from,
                                         @RequestParam(required = false) String to,
                                         @RequestParam(required = false) String limit, HttpServletRequest request) {
        return new WebhookDeliveriesResponse(webhooks(request).deliveries(endpointId,
                Requests.optionalInstant("from", from), Requests.optionalInstant("to", to),
                Requests.optionalInt("limit", limit))
                .stream().map(WebhookDeliveryView::of).toList());
    }

    @PostMapping(path = "/{endpointId}/redeliver", consumes = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.ACCEPTED)
    @Operation(summary = "Send again, from the start of the retry schedule: the deliveries of events in [from, to], "
            + "or one event by eventId")
    public WebhookRedeliveredResponse redeliver(@PathVariable String endpointId, @RequestBody WebhookRedeliverBody body,
                                         HttpServletRequest request) {
        Webhooks webhooks = webhooks(request);
        Requests.body(body);
        boolean byRange = body.from() != null || body.to() != null;
        if (byRange == (body.eventId() != null)) {
            throw new InvalidInputException("eventId", "give either 'eventId' or both 'from' and 'to'");
        }
        if (!byRange) {
            webhooks.redeliver(endpointId, body.eventId());
            return new WebhookRedeliveredResponse(1);
        }
        Instant from = Requests.optionalInstant("from", body.from())
                .orElseThrow(() -> new InvalidInputException("from", "is required with 'to'"));
        Instant to = Requests.optionalInstant("to", body.to())
                .orElseThrow(() -> new InvalidInputException("to", "is required with 'from'"));
        return new WebhookRedeliveredResponse(webhooks.redeliver(endpointId, from, to));
    }
}

package dev.verificationservice.console;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.EventTypes;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.validation.Inputs;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The console's part of events out: the webhook endpoints, an endpoint's recent deliveries with a
 * redeliver button, and a user's events with their delivery state. Like the rest of the console it uses the domain
 * ({@link Webhooks}), not the operator API's HTTP calls; sign-in, CSRF and the page frame are
 * {@link ConsoleController}'s.
 */
@Controller
@RequestMapping("/console")
public class ConsoleWebhooksController {

    /** How many of a user's latest events the events page shows. */
    static final int USER_EVENTS = 50;

    /** An endpoint as the console lists it. */
    public record EndpointRow(String endpointId, String url, String eventTypes, String status, String note) {
        static EndpointRow of(WebhookEndpoint endpoint) {
            return new EndpointRow(endpoint.endpointId(), endpoint.url().toString(),
                    endpoint.eventTypes().isEmpty() ? "all" : String.join(", ", endpoint.eventTypes()),
                    endpoint.isEnabled() ? "Enabled" : "Disabled",
                    endpoint.disabledReason().or(() -> endpoint.failingSince()
                            .map(since -> "failing since " + ConsoleViews.time(since) + " UTC")).orElse(""));
        }
    }

    /** One delivery: what was sent, how it went. */
    public record DeliveryRow(String eventId, String endpointId, String type, String userId, String occurredAt,
                              String status, String attempts, String lastAttempt) {
        static DeliveryRow of(Delivery delivery) {
            String answer = delivery.lastStatus().map(code -> "answered " + code)
                    .or(delivery::lastError).orElse("");
            String last = delivery.lastAttemptAt().map(at -> ConsoleViews.time(at) + " UTC" + (answer.isEmpty()
                    ? "" : ": " + answer)).orElse(answer);
            String next = delivery.nextAttemptAt().map(at -> "; next attempt " + ConsoleViews.time(at) + " UTC")
                    .orElse("");
            return new DeliveryRow(delivery.eventId(), delivery.endpointId(), delivery.event().type(),
                    delivery.event().userId(), ConsoleViews.time(delivery.event().occurredAt()),
                    delivery.status().name(), delivery.attempts() + next, Inputs.visible(last));
        }
    }

    /** One of a user's events and where it went. */
    public record UserEventRow(String time, String type, String deliveries) {
        static UserEventRow of(AuditEntry entry, List<Delivery> deliveries) {
            String state = deliveries.isEmpty() ? "not sent to any endpoint (yet)" : deliveries.stream()
                    .map(delivery -> delivery.endpointId() + ": " + delivery.status().name()
                            + delivery.lastStatus().map(code -> " (" + code + ")").orElse(""))
                    .collect(Collectors.joining(", "));
            return new UserEventRow(ConsoleViews.time(entry.timestamp()), EventTypes.of(entry.eventType()), state);
        }
    }

    private final ConsoleController console;
    /** Absent while webhooks are off ({@code VERIFICATION_WEBHOOKS_ENABLED}). */
    private final Optional<Webhooks> service;
    private final Verification verification;

    public ConsoleWebhooksController(ConsoleController console, ObjectProvider<Webhooks> webhooks,
                                     Verification verification) {
        this.console = console;
        this.service = Optional.ofNullable(webhooks.getIfAvailable());
        this.verification = verification;
    }

    private Webhooks webhooks() {
        return service.orElseThrow(() -> new InvalidInputException("webhooks", "are off on this service (set "
                + "VERIFICATION_ENCRYPTION_KEYS on DynamoDB, or VERIFICATION_WEBHOOKS_ENABLED=true)"));
    }

    @GetMapping("/webhooks")
    public String endpoints(HttpServletRequest request, Model model) {
        console.common(request, model);
        model.addAttribute("endpoints", webhooks().list().stream().map(EndpointRow::of).toList());
        return "console/webhooks";
    }

    @GetMapping("/webhooks/{endpointId}")
    public String endpoint(@PathVariable String endpointId, HttpServletRequest request, Model model) {
        console.common(request, model);
        model.addAttribute("endpoint", EndpointRow.of(webhooks().get(endpointId)));
        model.addAttribute("deliveries", webhooks().deliveries(endpointId, Optional.empty(), Optional.empty(),
                Optional.of(USER_EVENTS)).stream().map(DeliveryRow::of).toList());
        return "console/webhook";
    }

    @PostMapping("/webhooks/{endpointId}/redeliver")
    public String redeliver(@PathVariable String endpointId, @RequestParam(name = "eventId", required = false)
                            String eventId, HttpServletRequest request) {
        ConsoleSessions.Session session = ConsoleController.session(request);
        webhooks().redeliver(endpointId, eventId);
        session.flash(new ConsoleSessions.Flash(false, "Event " + eventId + " goes to " + endpointId
                + " again, from the start of the retry schedule; the list shows how it went."));
        return "redirect:" + UriComponentsBuilder.fromPath("/console/webhooks/{endpointId}")
                .buildAndExpand(endpointId).encode().toUriString() + "#result";
    }

    @GetMapping("/users/{userId}/events")
    public String userEvents(@PathVariable String userId, HttpServletRequest request, Model model) {
        console.common(request, model);
        model.addAttribute("userId", Inputs.userId(userId));
        model.addAttribute("events", verification.audit().query(userId, Optional.empty(), Optional.empty(),
                        Optional.of(USER_EVENTS), Optional.empty()).entries().stream()
                .map(entry -> UserEventRow.of(entry, webhooks().deliveriesOf(entry))).toList());
        return "console/events";
    }

    @ExceptionHandler(InvalidInputException.class)
    public String invalidInput(InvalidInputException e, HttpServletRequest request, HttpServletResponse response,
                               Model model) {
        return console.invalidInput(e, request, response, model);
    }

    @ExceptionHandler(StoreException.class)
    public String storeUnavailable(StoreException e, HttpServletRequest request, HttpServletResponse response,
                                   Model model) {
        return console.storeUnavailable(e, request, response, model);
    }
}

package dev.verificationservice.client;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Webhook endpoints over the operator API ({@code /v1/admin/webhooks}): from {@link VerificationClient#webhooks()} of
 * a client built with an <b>admin key</b> ({@code VERIFICATION_ADMIN_API_KEYS}); an application key gets a
 * {@link ProblemException} with code {@code FORBIDDEN}. A refused URL (not https, or a private address) or an
 * unknown event type is an {@link InvalidInputException} naming {@code url} or {@code eventTypes}.
 */
public final class WebhooksClient {

    private static final String PATH = "/v1/admin/webhooks";

    private final Transport transport;

    WebhooksClient(Transport transport) {
        this.transport = transport;
    }

    /** {@code POST /v1/admin/webhooks}: a new endpoint for every event type; its secret is in the answer only. */
    public WebhookSecret register(URI url) {
        return register(url, List.of(), Optional.empty());
    }

    /** {@code POST /v1/admin/webhooks}: a new endpoint for {@code eventTypes} (empty: all), such as {@code code.verified}. */
    public WebhookSecret register(URI url, List<String> eventTypes, Optional<String> description) {
        Objects.requireNonNull(url, "url");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("url", url.toString());
        body.put("eventTypes", List.copyOf(eventTypes));
        description.ifPresent(text -> body.put("description", text));
        return secret(transport.post(Operation.REGISTER_WEBHOOK, PATH, body).json());
    }

    /** {@code GET /v1/admin/webhooks}: every endpoint, enabled or not. */
    public List<WebhookEndpoint> list() {
        return transport.get(Operation.LIST_WEBHOOKS, PATH).json().objects("endpoints").stream()
                .map(WebhooksClient::endpoint).toList();
    }

    /** {@code GET /v1/admin/webhooks/{endpointId}}. */
    public WebhookEndpoint get(String endpointId) {
        return endpoint(transport.get(Operation.LIST_WEBHOOKS, path(endpointId)).json());
    }

    /** {@code DELETE /v1/admin/webhooks/{endpointId}}: nothing more is sent to it. */
    public void delete(String endpointId) {
        transport.delete(Operation.DELETE_WEBHOOK, path(endpointId));
    }

    /** {@code POST .../rotate-secret}: a new secret; the old one keeps signing beside it for 24 hours. */
    public WebhookSecret rotateSecret(String endpointId) {
        return secret(transport.post(Operation.ROTATE_WEBHOOK_SECRET, path(endpointId) + "/rotate-secret", Map.of())
                .json());
    }

    /** {@code POST .../enable}: delivers to an endpoint the relay disabled again (redeliver what failed meanwhile). */
    public WebhookEndpoint enable(String endpointId) {
        return endpoint(transport.post(Operation.ENABLE_WEBHOOK, path(endpointId) + "/enable", Map.of()).json());
    }

    /** {@code GET .../deliveries}: the latest deliveries to the endpoint, newest first. */
    public List<WebhookDelivery> deliveries(String endpointId) {
        return transport.get(Operation.WEBHOOK_DELIVERIES, path(endpointId) + "/deliveries").json()
                .objects("deliveries").stream()
                .map(d -> new WebhookDelivery(d.text("eventId"), d.text("type"), d.text("userId"),
                        d.instant("occurredAt"), d.text("status"), d.integer("attempts"),
                        d.optionalInteger("answerCode"), d.optionalInstant("lastAttemptAt"),
                        d.optionalInstant("nextAttemptAt"), d.optionalText("lastError")))
                .toList();
    }

    /** {@code POST .../redeliver} {eventId}: sends one event again (the same {@code webhook-id}). */
    public void redeliver(String endpointId, String eventId) {
        Objects.requireNonNull(eventId, "eventId");
        transport.post(Operation.REDELIVER_WEBHOOK, path(endpointId) + "/redeliver", Map.of("eventId", eventId));
    }

    /** {@code POST .../redeliver} {from, to}: sends the deliveries of events in {@code [from, to]} again; how many. */
    public int redeliver(String endpointId, Instant from, Instant to) {
        return transport.post(Operation.REDELIVER_WEBHOOK, path(endpointId) + "/redeliver",
                Map.of("from", from.toString(), "to", to.toString())).json().integer("redelivered");
    }

    private static String path(String endpointId) {
        Objects.requireNonNull(endpointId, "endpointId");
        return PATH + "/" + URLEncoder.encode(endpointId, StandardCharsets.UTF_8);
    }

    private static WebhookSecret secret(Fields answer) {
        return new WebhookSecret(answer.text("endpointId"), answer.text("secret"), endpoint(answer.object("endpoint")));
    }

    private static WebhookEndpoint endpoint(Fields e) {
        return new WebhookEndpoint(e.text("endpointId"), URI.create(e.text("url")), e.texts("eventTypes"),
                e.optionalText("description"), e.text("status").equals("ENABLED"), e.instant("createdAt"),
                e.optionalText("disabledReason"), e.optionalInstant("failingSince"),
                e.optionalInstant("previousSecretSignsUntil"));
    }
}

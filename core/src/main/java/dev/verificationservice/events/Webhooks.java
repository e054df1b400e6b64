package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The operator's webhook endpoints: register (the {@code whsec_} secret is answered once and stored only
 * sealed), list, delete, rotate the secret (the old one keeps signing beside the new for
 * {@link #PREVIOUS_SECRET_SIGNS_FOR}), enable again after the relay disabled it, list deliveries and redeliver.
 */
public final class Webhooks {

    public static final Duration PREVIOUS_SECRET_SIGNS_FOR = Duration.ofHours(24);
    public static final int MAX_DESCRIPTION_LENGTH = 256;
    public static final int MAX_PAGE_SIZE = 100;
    /** At most this many deliveries are put back by one redelivery of a time range. */
    public static final int MAX_REDELIVER = 1000;
    private static final int MAX_UPDATE_ATTEMPTS = 5;

    private final WebhookRepository store;
    private final EncryptionKeyRing keys;
    private final EndpointUrls urls;
    private final SecureTokens tokens;
    private final Clock clock;

    public Webhooks(WebhookRepository store, EncryptionKeyRing keys, EndpointUrls urls,
                    SecureTokens tokens, Clock clock) {
        this.store = store;
        this.keys = keys;
        this.urls = urls;
        this.tokens = tokens;
        this.clock = clock;
    }

    /** A new endpoint and its secret: the only time the secret is shown. */
    public record Registration(WebhookEndpoint endpoint, WebhookSecret secret) {
    }

    /**
     * Registers an endpoint.
     *
     * @param eventTypes the types to send (see {@link EventTypes}); empty for all
     */
    public Registration register(String url, Collection<String> eventTypes, Optional<String> description) {
        URI uri = urls.checkRegistration(url);
        var subscribed = EventTypes.subscription(eventTypes);
        Optional<String> text = Inputs.optionalText("description", description.orElse(null), MAX_DESCRIPTION_LENGTH);
        for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
            String endpointId = EndpointIds.generate(tokens);
            WebhookSecret secret = WebhookSecret.generate(tokens.random());
            WebhookEndpoint endpoint = new WebhookEndpoint(endpointId, uri, subscribed, text, EndpointStatus.ENABLED,
                    Instants.toMillis(clock.instant()), seal(endpointId, secret), Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.empty(), 1);
            if (store.insertEndpoint(endpoint)) {
                return new Registration(endpoint, secret);
            }
        }
        throw new StoreException("could not find a free endpoint id after " + MAX_UPDATE_ATTEMPTS + " attempts");
    }

    public List<WebhookEndpoint> list() {
        return store.listEndpoints();
    }

    /** The endpoint, or a refusal naming {@code endpointId} when there is none. */
    public WebhookEndpoint get(String endpointId) {
        return store.findEndpoint(EndpointIds.check(endpointId)).orElseThrow(() -> unknown(endpointId));
    }

    /**
     * Deletes the endpoint and fails its pending deliveries (up to {@value #MAX_REDELIVER}): the relay reads due work
     * only of endpoints that exist, so nothing else would take them out of the outbox. A relay sending one now loses
     * its lease and leaves it failed.
     */
    public void delete(String endpointId) {
        if (!store.deleteEndpoint(EndpointIds.check(endpointId))) {
            throw unknown(endpointId);
        }
        Instant now = clock.instant();
        Instant lastRetry = now.plus(Collections.max(RetrySchedule.DELAYS));
        for (Delivery pending : store.dueDeliveries(endpointId, lastRetry, MAX_REDELIVER)) {
            store.putDelivery(pending.failed(now, Optional.empty(), "the endpoint was deleted", Optional.empty()));
        }
    }

    /** A new secret; the current one becomes the previous and signs beside it for a day. */
    public Registration rotateSecret(String endpointId) {
        WebhookSecret fresh = WebhookSecret.generate(tokens.random());
        Instant until = clock.instant().plus(PREVIOUS_SECRET_SIGNS_FOR);
        WebhookEndpoint rotated = update(endpointId, endpoint ->
                endpoint.withSecrets(seal(endpointId, fresh), Optional.of(endpoint.secret()), Optional.of(until)));
        return new Registration(rotated, fresh);
    }

    /** Enables the endpoint again, with a clean failure record; deliveries that failed meanwhile need a redelivery. */
    public WebhookEndpoint enable(String endpointId) {
        return update(endpointId, endpoint ->
                endpoint.withStatus(EndpointStatus.ENABLED, Optional.empty(), Optional.empty()));
    }

    /** The secrets that sign a delivery at {@code now}: the current one, then the previous while it still signs. */
    public List<WebhookSecret> signingSecrets(WebhookEndpoint endpoint, Instant now) {
        List<WebhookSecret> secrets = new ArrayList<>();
        secrets.add(open(endpoint.endpointId(), endpoint.secret()));
        if (endpoint.previousSecret().isPresent() && endpoint.previousUntil().map(now::isBefore).orElse(false)) {
            secrets.add(open(endpoint.endpointId(), endpoint.previousSecret().get()));
        }
        return secrets;
    }

    /** An endpoint's deliveries of events in {@code [from, to]} (defaults: all time, now), newest first. */
    public List<Delivery> deliveries(String endpointId, Optional<Instant> from, Optional<Instant> to,
                                     Optional<Integer> limit) {
        get(endpointId);
        int size = limit.orElse(50);
        if (size < 1 || size > MAX_PAGE_SIZE) {
            throw new InvalidInputException("limit", "must be between 1 and " + MAX_PAGE_SIZE);
        }
        Instant start = from.orElse(Instant.EPOCH);
        Instant end = to.orElse(clock.instant());
        AuditLog.requireStorable("from", start);
        AuditLog.requireStorable("to", end);
        if (start.isAfter(end)) {
            throw new InvalidInputException("from", "must not be after 'to'");
        }
        return store.deliveries(endpointId, start, end, size);
    }

    /**
     * Sends the endpoint's deliveries of events in {@code [from, to]} again, from the start of the retry schedule,
     * whatever their state (at most {@value #MAX_REDELIVER}; the answer says how many).
     */
    public int redeliver(String endpointId, Instant from, Instant to) {
        get(endpointId);
        if (from == null || to == null || from.isAfter(to)) {
            throw new InvalidInputException(from == null ? "from" : "to", "give both 'from' and 'to', 'from' first");
        }
        AuditLog.requireStorable("from", from);
        AuditLog.requireStorable("to", to);
        Instant now = clock.instant();
        List<Delivery> found = store.deliveries(endpointId, from, to, MAX_REDELIVER);
        found.forEach(delivery -> store.putDelivery(delivery.redelivered(now)));
        return found.size();
    }

    /**
     * Sends one event to the endpoint again; also an event it never had a delivery of (registered later, or not
     * subscribed then), as long as another endpoint's delivery of it is still kept: an event id names no user, so a
     * delivery, which holds the event as sent, is where it is found.
     */
    public Delivery redeliver(String endpointId, String eventId) {
        WebhookEndpoint endpoint = get(endpointId);
        EventIds.EventKey key = EventIds.parse(eventId);
        Instant now = clock.instant();
        Delivery again = store.findDelivery(endpoint.endpointId(), key.occurredAt(), key.eventId())
                .map(existing -> existing.redelivered(now))
                .or(() -> store.listEndpoints().stream()
                        .map(other -> store.findDelivery(other.endpointId(), key.occurredAt(), key.eventId()))
                        .flatMap(Optional::stream).findFirst()
                        .map(elsewhere -> Delivery.pending(endpoint.endpointId(), elsewhere.event(), now)))
                .orElseThrow(() -> new InvalidInputException("eventId", "names no event of which a delivery is "
                        + "still kept"));
        store.putDelivery(again);
        return again;
    }

    /**
     * The deliveries of the event an audit entry is, one per endpoint that has one, for the console's view of a user's
     * events; empty while the event waits in the outbox, or when no endpoint subscribes to it.
     */
    public List<Delivery> deliveriesOf(AuditEntry entry) {
        WebhookEvent event = WebhookEvent.of(entry);
        return store.listEndpoints().stream()
                .map(endpoint -> store.findDelivery(endpoint.endpointId(), event.occurredAt(), event.eventId()))
                .flatMap(Optional::stream)
                .toList();
    }

    private WebhookEndpoint update(String endpointId, UnaryOperator<WebhookEndpoint> change) {
        for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
            WebhookEndpoint current = get(endpointId);
            WebhookEndpoint changed = change.apply(current);
            if (store.replaceEndpoint(changed, current.version())) {
                return changed;
            }
        }
        throw new StoreException("the endpoint " + endpointId + " kept changing; try again");
    }

    private SealedSecret seal(String endpointId, WebhookSecret secret) {
        return keys.seal(secret.text().getBytes(StandardCharsets.UTF_8), associatedData(endpointId));
    }

    private WebhookSecret open(String endpointId, SealedSecret sealed) {
        return new WebhookSecret(new String(keys.open(sealed, associatedData(endpointId)), StandardCharsets.UTF_8));
    }

    private static String associatedData(String endpointId) {
        return "webhook|" + endpointId;
    }

    private static InvalidInputException unknown(String endpointId) {
        return new InvalidInputException("endpointId", "no endpoint " + endpointId + " is registered; "
                + "GET /v1/admin/webhooks lists them");
    }
}

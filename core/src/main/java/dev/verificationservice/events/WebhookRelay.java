package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The relay's steps, each on the injected clock and without threads of its own ({@link RelayRunner} schedules them).
 * Any number of relays (threads, service instances) may run them on one store at once: the conditional writes of the
 * {@link WebhookRepository} let exactly one of them send a delivery at a time. What the outbox index answers is a
 * hint (it may lag): every decision is a conditional write.
 *
 * <p><b>Fan out</b> ({@link #fanOut}):
 * <ol>
 *   <li>read a batch of undelivered events from the outbox, and the endpoints;</li>
 *   <li>for each event, one delivery per subscribed endpoint (pending, or failed for a disabled endpoint so that a
 *   redelivery after enabling finds it), its body fixed now so that every retry signs the same bytes, each written
 *   only if absent;</li>
 *   <li>then the event's outbox attributes removed: deliveries first, so a crash between the two repeats
 *   harmlessly, and a stale event fans out to nothing new. The whole batch is one store step (on SQLite one
 *   transaction).</li>
 * </ol>
 *
 * <p><b>Deliver</b> ({@link #claim}, {@link #send}, {@link #record}; {@link #attempt} makes the three for one):
 * <ol>
 *   <li>claim leases ({@link #LEASE}, longer than a request may take) by a conditional write each: still pending,
 *   due, and unleased or its lease run out. A claim that fails (a stale hint, another relay) sends nothing
 *   ({@code NOT_CLAIMED});</li>
 *   <li>a deleted or disabled endpoint: the delivery fails at once. The endpoint is read for a send at most once
 *   per {@link #ENDPOINT_FRESH} on the relay's clock, and again after any endpoint write made through this store
 *   object: the endpoints' one partition takes a read per endpoint and instance a second, not one a delivery (so a
 *   change made on another instance reaches this one's sends within that time);</li>
 *   <li>check the addresses the endpoint's name resolves to now ({@link EndpointUrls}), sign, POST, and work out
 *   what the answer means (delivered, due again by the {@link RetrySchedule}, or failed, and the endpoint disabled
 *   when it answered 410 or has failed for too long);</li>
 *   <li>write outcomes on the condition that this relay still owns each lease, in one store step with the claims of
 *   the endpoint's next deliveries. When another relay took a lease over (it ran out), nothing is written for it and
 *   the attempt counts {@code LEASE_LOST}: the delivery may go out twice.</li>
 * </ol>
 */
public final class WebhookRelay {

    /** Longer than a request may take, so a lease outlives every attempt made under it. */
    public static final Duration LEASE = RetrySchedule.TIMEOUT.multipliedBy(4);

    /** How long an endpoint read for a send serves the next sends (see the class comment). */
    public static final Duration ENDPOINT_FRESH = Duration.ofSeconds(1);

    private final WebhookRepository store;
    private final Webhooks webhooks;
    private final EndpointUrls urls;
    private final WebhookTransport transport;
    private final AuditLog audit;
    private final RelayMetrics metrics;
    private final Clock clock;
    private final String owner;
    /** Each endpoint as last read for a send, with when and at which count of this store object's endpoint writes. */
    private final ConcurrentHashMap<String, EndpointRead> endpointReads = new ConcurrentHashMap<>();

    private record EndpointRead(Optional<WebhookEndpoint> endpoint, Instant at, long writes) {
    }

    /**
     * @param owner names this relay in the leases it takes (unique per instance, e.g. random)
     */
    public WebhookRelay(WebhookRepository store, Webhooks webhooks, EndpointUrls urls, WebhookTransport transport,
                        AuditLog audit, RelayMetrics metrics, Clock clock, String owner) {
        this.store = store;
        this.webhooks = webhooks;
        this.urls = urls;
        this.transport = transport;
        this.audit = audit;
        this.metrics = metrics;
        this.clock = clock;
        this.owner = owner;
    }

    /**
     * Takes up to {@code limit} undelivered events out of the outbox, each with one delivery per subscribed endpoint
     * (written FAILED for a disabled one, so a redelivery after enabling finds it), in one store step. Answers how
     * many it took.
     */
    public int fanOut(int limit) {
        return fanOut(limit, store::listEndpoints);
    }

    /**
     * {@link #fanOut(int)} to the {@code endpoints} read already ({@link #endpoints()}), so that a poll's batches
     * and lanes read the endpoints' partition once, not once a batch.
     */
    public int fanOut(int limit, List<WebhookEndpoint> endpoints) {
        return fanOut(limit, () -> endpoints);
    }

    /** The endpoints are asked for only once there are events to fan out to them. */
    private int fanOut(int limit, Supplier<List<WebhookEndpoint>> endpointsToFanOutTo) {
        List<AuditEntry> events = store.undeliveredEvents(limit);
        if (events.isEmpty()) {
            return 0;
        }
        List<WebhookEndpoint> endpoints = endpointsToFanOutTo.get();
        Instant now = clock.instant();
        List<WebhookRepository.FanOut> batch = new ArrayList<>();
        for (AuditEntry entry : events) {
            WebhookEvent event = WebhookEvent.of(entry);
            List<Delivery> deliveries = new ArrayList<>();
            for (WebhookEndpoint endpoint : endpoints) {
                if (endpoint.subscribesTo(event.type())) {
                    deliveries.add(endpoint.isEnabled() ? Delivery.pending(endpoint.endpointId(), event, now)
                            : Delivery.skipped(endpoint.endpointId(), event));
                }
            }
            batch.add(new WebhookRepository.FanOut(entry, deliveries));
        }
        store.fanOut(batch);
        return events.size();
    }

    /** Calls {@code listener} when the store has written new events (see {@link WebhookRepository#onNewEvents}). */
    public Runnable onNewEvents(Runnable listener) {
        return store.onNewEvents(listener);
    }

    /** The endpoints whose due deliveries to look for, enabled or not (a disabled one's are failed by attempts). */
    public List<String> endpointIds() {
        return endpoints().stream().map(WebhookEndpoint::endpointId).toList();
    }

    /** Every endpoint, enabled or not: one read of the store's endpoints. */
    public List<WebhookEndpoint> endpoints() {
        return store.listEndpoints();
    }

    /** Up to {@code perEndpoint} of each endpoint's deliveries due now, endpoint after endpoint. */
    public List<Delivery> due(int perEndpoint) {
        return endpointIds().stream().flatMap(endpointId -> due(endpointId, perEndpoint).stream()).toList();
    }

    /** Up to {@code limit} of an endpoint's deliveries due now (hints: {@link #claim} checks them under the lease). */
    public List<Delivery> due(String endpointId, int limit) {
        return store.dueDeliveries(endpointId, clock.instant(), limit);
    }

    /** One attempt at a delivery, on this thread: claim its lease, send it signed, write the outcome. */
    public DeliveryOutcome attempt(Delivery due) {
        List<Delivery> claimed = claim(List.of(due));
        if (claimed.isEmpty()) {
            return DeliveryOutcome.NOT_CLAIMED;
        }
        Attempted attempted;
        try {
            attempted = send(claimed.get(0)).join();
        } catch (CompletionException e) {
            // The store's own exception, as the steps before the answer throw it.
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        return record(List.of(attempted), List.of()).outcomes().get(0);
    }

    /**
     * Takes the leases of these due deliveries in one store step: the ones claimed, in order. The others (another
     * relay has them, or they are no longer due) are counted {@link DeliveryOutcome#NOT_CLAIMED}; nothing is sent.
     */
    public List<Delivery> claim(List<Delivery> due) {
        if (due.isEmpty()) {
            return List.of();
        }
        Instant now = clock.instant();
        List<Delivery> claimed = store.claimDeliveries(due, owner, now, now.plus(LEASE));
        countUnclaimed(due, claimed);
        return claimed;
    }

    /** Whether a claimed delivery's lease lasts at least {@code needed} from now, on this relay's clock. */
    public boolean leaseLasts(Delivery claimed, Duration needed) {
        Instant by = clock.instant().plus(needed);
        return claimed.leaseUntil().map(until -> !until.isBefore(by)).orElse(false);
    }

    /** What an attempt came to, before it is written: the delivery as the outcome leaves it, and the outcome. */
    public record Attempted(Delivery outcome, DeliveryOutcome result) {
    }

    /** What {@link #record} wrote: each attempt's outcome as counted, in order, and the deliveries it claimed. */
    public record Recorded(List<DeliveryOutcome> outcomes, List<Delivery> claimed) {
    }

    /**
     * Sends a delivery this relay has claimed, signed, without a thread waiting for the answer; once the answer (or
     * its timeout) has come, works out what it means on the thread that completes it, changing the endpoint's state
     * where it must (failing, disabled, well again). The delivery's outcome is not written here: {@link #record}
     * writes it.
     */
    public CompletableFuture<Attempted> send(Delivery claimed) {
        Instant now = clock.instant();
        Optional<WebhookEndpoint> found = endpointToSendTo(claimed.endpointId(), now);
        if (found.isEmpty() || !found.get().isEnabled()) {
            String why = found.isEmpty() ? "the endpoint was deleted" : "the endpoint was disabled";
            return CompletableFuture.completedFuture(new Attempted(
                    claimed.failed(now, Optional.empty(), why, Optional.empty()), DeliveryOutcome.FAILED));
        }
        WebhookEndpoint endpoint = found.get();
        Optional<String> refused = urls.checkDelivery(endpoint.url());
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(
                    outcomeOf(endpoint, claimed, new WebhookTransport.NoAnswer(refused.get())));
        }
        return send(endpoint, claimed, now).thenApply(response -> outcomeOf(endpoint, claimed, response));
    }

    /** The endpoint as read at most {@link #ENDPOINT_FRESH} ago, and since this store object's last endpoint write. */
    private Optional<WebhookEndpoint> endpointToSendTo(String endpointId, Instant now) {
        long writes = store.endpointWrites();
        EndpointRead last = endpointReads.get(endpointId);
        if (last != null && last.writes() == writes && !now.isBefore(last.at())
                && now.isBefore(last.at().plus(ENDPOINT_FRESH))) {
            return last.endpoint();
        }
        Optional<WebhookEndpoint> read = store.findEndpoint(endpointId);
        endpointReads.put(endpointId, new EndpointRead(read, now, writes));
        return read;
    }

    /**
     * Writes attempts' outcomes, each if this relay still holds its lease, and claims {@code next} in the same store
     * step: outcomes and the endpoint's next deliveries share one write (on SQLite one sync). An outcome written
     * after its lease ran out is counted {@link DeliveryOutcome#LEASE_LOST}.
     */
    public Recorded record(List<Attempted> attempted, List<Delivery> next) {
        if (attempted.isEmpty() && next.isEmpty()) {
            return new Recorded(List.of(), List.of());
        }
        Instant now = clock.instant();
        WebhookRepository.Settled settled = store.recordAndClaim(
                attempted.stream().map(Attempted::outcome).toList(), owner, next, now, now.plus(LEASE));
        Set<String> written = new HashSet<>();
        settled.recorded().forEach(outcome -> written.add(keyOf(outcome)));
        List<DeliveryOutcome> outcomes = new ArrayList<>();
        for (Attempted each : attempted) {
            outcomes.add(counted(each.outcome(), written.contains(keyOf(each.outcome())) ? each.result()
                    : DeliveryOutcome.LEASE_LOST));
        }
        countUnclaimed(next, settled.claimed());
        return new Recorded(outcomes, settled.claimed());
    }

    /**
     * Gives back the leases of claimed deliveries that were never sent (a runner that stops), so they are due again
     * at once, not when their leases run out. Nothing is counted: no attempt was made.
     */
    public void release(List<Delivery> claimed) {
        if (!claimed.isEmpty()) {
            Instant now = clock.instant();
            store.recordAndClaim(claimed.stream().map(Delivery::released).toList(), owner, List.of(), now, now);
        }
    }

    private static String keyOf(Delivery delivery) {
        return delivery.endpointId() + " " + delivery.eventId();
    }

    private void countUnclaimed(List<Delivery> asked, List<Delivery> claimed) {
        Set<String> taken = new HashSet<>();
        claimed.forEach(delivery -> taken.add(keyOf(delivery)));
        for (Delivery delivery : asked) {
            if (!taken.contains(keyOf(delivery))) {
                counted(delivery, DeliveryOutcome.NOT_CLAIMED);
            }
        }
    }

    /** What the receiver's answer means: delivered, tried again later, or failed (and the endpoint's state). */
    private Attempted outcomeOf(WebhookEndpoint endpoint, Delivery delivery, WebhookTransport.Response response) {
        Instant after = clock.instant();
        if (response instanceof WebhookTransport.Answered answered && answered.status() / 100 == 2) {
            if (endpoint.failingSince().isPresent()) {
                changeEndpoint(endpoint.endpointId(), current -> current.isEnabled() && current.failingSince().isPresent()
                        ? Optional.of(current.withStatus(EndpointStatus.ENABLED, Optional.empty(), Optional.empty()))
                        : Optional.empty());
            }
            return new Attempted(delivery.delivered(after, answered.status()), DeliveryOutcome.DELIVERED);
        }
        Optional<Integer> status = response instanceof WebhookTransport.Answered answered
                ? Optional.of(answered.status()) : Optional.empty();
        String error = status.map(code -> "answered " + code)
                .orElseGet(() -> ((WebhookTransport.NoAnswer) response).why());
        if (status.equals(Optional.of(410))) {
            disable(endpoint.endpointId(), "answered 410 Gone");
            return new Attempted(delivery.failed(after, status, error, Optional.empty()), DeliveryOutcome.FAILED);
        }
        Instant failingSince = endpoint.failingSince().orElse(after);
        if (!failingSince.plus(RetrySchedule.DISABLE_AFTER).isAfter(after)) {
            disable(endpoint.endpointId(), "failed for " + RetrySchedule.DISABLE_AFTER.toDays() + " days");
            return new Attempted(delivery.failed(after, status, error, Optional.empty()), DeliveryOutcome.FAILED);
        }
        if (endpoint.failingSince().isEmpty()) {
            changeEndpoint(endpoint.endpointId(), current -> current.failingSince().isEmpty()
                    ? Optional.of(current.withStatus(current.status(), Optional.of(after), current.disabledReason()))
                    : Optional.empty());
        }
        Optional<Instant> retryAt = RetrySchedule.nextAttempt(delivery.attempts() + 1, after);
        return new Attempted(delivery.failed(after, status, error, retryAt),
                retryAt.isPresent() ? DeliveryOutcome.RETRYING : DeliveryOutcome.FAILED);
    }

    private CompletableFuture<WebhookTransport.Response> send(WebhookEndpoint endpoint, Delivery delivery,
                                                              Instant now) {
        byte[] body = delivery.event().body().getBytes(StandardCharsets.UTF_8);
        long timestamp = now.getEpochSecond();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        headers.put("webhook-id", delivery.eventId());
        headers.put("webhook-timestamp", Long.toString(timestamp));
        headers.put("webhook-signature", WebhookSignatures.header(webhooks.signingSecrets(endpoint, now),
                delivery.eventId(), timestamp, body));
        return transport.send(endpoint.url(), headers, body, RetrySchedule.TIMEOUT);
    }

    private DeliveryOutcome counted(Delivery delivery, DeliveryOutcome outcome) {
        metrics.attempted(delivery.endpointId(), outcome);
        return outcome;
    }

    /** Disables the endpoint once (a second relay finding it disabled does nothing), with an audit entry. */
    private void disable(String endpointId, String reason) {
        boolean changed = changeEndpoint(endpointId, current -> current.isEnabled()
                ? Optional.of(current.withStatus(EndpointStatus.DISABLED, current.failingSince(), Optional.of(reason)))
                : Optional.empty());
        if (changed) {
            metrics.endpointDisabled(endpointId);
            // The endpoint's own history: its id stands where a user id stands in other entries.
            audit.recordFailure(endpointId, AuditEventType.WEBHOOK_ENDPOINT_DISABLED, "ENDPOINT_FAILING",
                    Map.of("endpointId", endpointId, "reason", reason), ClientContext.none());
        }
    }

    /** Applies a change to the endpoint as stored now, retrying on a concurrent change; whether it wrote one. */
    private boolean changeEndpoint(String endpointId,
                                   Function<WebhookEndpoint, Optional<WebhookEndpoint>> change) {
        for (int attempt = 0; attempt < 5; attempt++) {
            Optional<WebhookEndpoint> current = store.findEndpoint(endpointId);
            Optional<WebhookEndpoint> changed = current.flatMap(change);
            if (changed.isEmpty()) {
                return false;
            }
            if (store.replaceEndpoint(changed.get(), current.get().version())) {
                return true;
            }
        }
        return false;
    }
}

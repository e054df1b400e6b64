package dev.verificationservice.spring.store;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookRepository;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's webhooks and outbox, each call timed. The batched calls a store may run in one step
 * ({@link #claimDeliveries}, {@link #recordAndClaim}) go to the store's own, timed as one call each.
 */
record MeteredWebhooks(WebhookRepository webhooks, StoreTimers.Port timer) implements WebhookRepository {

    @Override
    public boolean insertEndpoint(WebhookEndpoint endpoint) {
        return timer.time("insertEndpoint", () -> webhooks.insertEndpoint(endpoint));
    }

    @Override
    public Optional<WebhookEndpoint> findEndpoint(String endpointId) {
        return timer.time("findEndpoint", () -> webhooks.findEndpoint(endpointId));
    }

    @Override
    public long endpointWrites() {
        return webhooks.endpointWrites();
    }

    @Override
    public List<WebhookEndpoint> listEndpoints() {
        return timer.time("listEndpoints", webhooks::listEndpoints);
    }

    @Override
    public boolean replaceEndpoint(WebhookEndpoint updated, long expectedVersion) {
        return timer.time("replaceEndpoint", () -> webhooks.replaceEndpoint(updated, expectedVersion));
    }

    @Override
    public boolean deleteEndpoint(String endpointId) {
        return timer.time("deleteEndpoint", () -> webhooks.deleteEndpoint(endpointId));
    }

    @Override
    public List<AuditEntry> undeliveredEvents(int limit) {
        return timer.time("undeliveredEvents", () -> webhooks.undeliveredEvents(limit));
    }

    @Override
    public void fanOut(List<FanOut> events) {
        timer.run("fanOut", () -> webhooks.fanOut(events));
    }

    @Override
    public List<Delivery> dueDeliveries(String endpointId, Instant now, int limit) {
        return timer.time("dueDeliveries", () -> webhooks.dueDeliveries(endpointId, now, limit));
    }

    @Override
    public Optional<Delivery> findDelivery(String endpointId, Instant occurredAt, String eventId) {
        return timer.time("findDelivery", () -> webhooks.findDelivery(endpointId, occurredAt, eventId));
    }

    @Override
    public Optional<Delivery> claimDelivery(Delivery delivery, String owner, Instant now, Instant leaseUntil) {
        return timer.time("claimDelivery", () -> webhooks.claimDelivery(delivery, owner, now, leaseUntil));
    }

    @Override
    public List<Delivery> claimDeliveries(List<Delivery> deliveries, String owner, Instant now, Instant leaseUntil) {
        return timer.time("claimDeliveries", () -> webhooks.claimDeliveries(deliveries, owner, now, leaseUntil));
    }

    @Override
    public boolean recordAttempt(Delivery outcome, String owner) {
        return timer.time("recordAttempt", () -> webhooks.recordAttempt(outcome, owner));
    }

    @Override
    public Settled recordAndClaim(List<Delivery> outcomes, String owner, List<Delivery> next, Instant now,
                                  Instant leaseUntil) {
        return timer.time("recordAndClaim", () -> webhooks.recordAndClaim(outcomes, owner, next, now, leaseUntil));
    }

    /** Registers the listener with the store itself: a registration, not a store call. */
    @Override
    public Runnable onNewEvents(Runnable listener) {
        return webhooks.onNewEvents(listener);
    }

    @Override
    public void putDelivery(Delivery delivery) {
        timer.run("putDelivery", () -> webhooks.putDelivery(delivery));
    }

    @Override
    public List<Delivery> deliveries(String endpointId, Instant from, Instant to, int limit) {
        return timer.time("deliveries", () -> webhooks.deliveries(endpointId, from, to, limit));
    }

    @Override
    public OutboxStats outboxStats(Instant now) {
        return timer.time("outboxStats", () -> webhooks.outboxStats(now));
    }
}

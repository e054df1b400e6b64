package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for events out: endpoints, deliveries and the outbox. The outbox is not a table of its own: a store
 * marks every audit entry it writes as undelivered (on DynamoDB a sparse index attribute of the audit item), so an
 * event is written in the same atomic step as its entry, whichever write carries that entry. Every method may throw
 * {@link dev.verificationservice.store.StoreException}.
 *
 * <p>The outbox reads ({@link #undeliveredEvents}, {@link #dueDeliveries}) may lag and may repeat (a DynamoDB global
 * index is eventually consistent): the relay treats what they return as hints and relies only on the conditional
 * writes ({@link #fanOut}, {@link #claimDelivery}, {@link #recordAttempt}).
 */
public interface WebhookRepository {

    // Endpoints

    /** Writes a new endpoint; {@code false} when its id is taken (pick another). */
    boolean insertEndpoint(WebhookEndpoint endpoint);

    Optional<WebhookEndpoint> findEndpoint(String endpointId);

    /** Every endpoint, enabled or not (a handful: they live in one partition). */
    List<WebhookEndpoint> listEndpoints();

    /** Replaces the endpoint if its stored version is {@code expectedVersion}; {@code false} otherwise (re-read). */
    boolean replaceEndpoint(WebhookEndpoint updated, long expectedVersion);

    /** Deletes the endpoint (its deliveries stay until their ttl); {@code false} when there was none. */
    boolean deleteEndpoint(String endpointId);

    // Outbox

    /** Up to {@code limit} audit entries still marked undelivered, oldest first as far as the store can tell. */
    List<AuditEntry> undeliveredEvents(int limit);

    /**
     * Writes each delivery whose item does not exist yet, then takes the entry out of the outbox (SQLite in one
     * transaction; DynamoDB in that order, so a crash between leaves the entry in the outbox). Safe to repeat (a
     * second relay, a stale index, a retry after a lost answer): existing deliveries are left as they are.
     */
    void fanOut(AuditEntry entry, List<Delivery> deliveries);

    /**
     * Up to {@code limit} of one endpoint's PENDING deliveries whose next attempt is due at {@code now}, oldest
     * first. Per endpoint, so that one endpoint's backlog never hides another's due work from the relay.
     */
    List<Delivery> dueDeliveries(String endpointId, Instant now, int limit);

    Optional<Delivery> findDelivery(String endpointId, WebhookEvent event);

    /**
     * Takes the lease of a PENDING delivery due at {@code now}, if nobody holds it or the holder's lease ran out
     * (conditional write): the delivery as leased, or empty when another relay has it or it is no longer due.
     */
    Optional<Delivery> claimDelivery(Delivery delivery, String owner, Instant now, Instant leaseUntil);

    /** Writes an attempt's outcome if {@code owner} still holds the lease; {@code false} when it was lost. */
    boolean recordAttempt(Delivery outcome, String owner);

    /** Writes the delivery as given, whatever is stored (a redelivery puts it back in the outbox). */
    void putDelivery(Delivery delivery);

    /** Up to {@code limit} of an endpoint's deliveries of events in {@code [from, to]}, newest first. */
    List<Delivery> deliveries(String endpointId, Instant from, Instant to, int limit);

    /** What the outbox holds now: undelivered events plus pending deliveries, and how old the oldest is. */
    OutboxStats outboxStats(Instant now);

    /** The metrics' view of the outbox. */
    record OutboxStats(long pending, Optional<Instant> oldest) {
    }
}

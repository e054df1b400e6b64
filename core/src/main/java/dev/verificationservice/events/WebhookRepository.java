package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for events out: endpoints, deliveries and the outbox. The outbox is not a table of its own: a store
 * marks an audit entry it writes as undelivered (on DynamoDB a sparse index attribute of the audit item) when its
 * {@link EventSubscriptions} says some endpoint subscribes to the entry's type, so an event is written in the same
 * atomic step as its entry, whichever write carries that entry; after
 * {@link dev.verificationservice.VerificationStore#eventsOff} it marks none. A store tells its view of every endpoint
 * write it makes ({@link EventSubscriptions#changedIf}). Every method may throw
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

    /**
     * How many endpoint writes were made through this object ({@link EventSubscriptions#endpointWrites}): a copy of
     * an endpoint read before the count last moved may be stale.
     */
    long endpointWrites();

    /** Replaces the endpoint if its stored version is {@code expectedVersion}; {@code false} otherwise (re-read). */
    boolean replaceEndpoint(WebhookEndpoint updated, long expectedVersion);

    /** Deletes the endpoint (its deliveries stay until their ttl); {@code false} when there was none. */
    boolean deleteEndpoint(String endpointId);

    // Outbox

    /**
     * A look at the outbox: up to {@code limit} audit entries still marked undelivered, oldest first among those
     * read. A store with many outbox partitions may read some of them per look (DynamoDB: the ones its instance
     * wrote to lately and a few in turn), so that every entry is found within a bounded number of looks.
     */
    List<AuditEntry> undeliveredEvents(int limit);

    /**
     * For each event in turn, writes each of its deliveries whose item does not exist yet, then takes its entry out
     * of the outbox (SQLite: the whole batch in one transaction; DynamoDB: in that order, so a crash between leaves
     * the entry in the outbox). Safe to repeat (a second relay, a stale index, a retry after a lost answer):
     * existing deliveries are left as they are.
     */
    void fanOut(List<FanOut> events);

    /** One event of a fan-out: its audit entry and a delivery per subscribed endpoint. */
    record FanOut(AuditEntry entry, List<Delivery> deliveries) {
        public FanOut {
            deliveries = List.copyOf(deliveries);
        }
    }

    /**
     * Up to {@code limit} of one endpoint's PENDING deliveries whose next attempt is due at {@code now}, oldest
     * first. Per endpoint, so that one endpoint's backlog never hides another's due work from the relay.
     */
    List<Delivery> dueDeliveries(String endpointId, Instant now, int limit);

    /** An endpoint's delivery of the event with this id and time, if one is kept. */
    Optional<Delivery> findDelivery(String endpointId, Instant occurredAt, String eventId);

    /**
     * Takes the lease of a PENDING delivery due at {@code now}, if nobody holds it or the holder's lease ran out
     * (conditional write): the delivery as leased, or empty when another relay has it or it is no longer due.
     */
    Optional<Delivery> claimDelivery(Delivery delivery, String owner, Instant now, Instant leaseUntil);

    /**
     * {@link #claimDelivery} for each delivery given, in one step where the store can (SQLite: one transaction, so
     * one sync); the deliveries claimed, in the order given.
     */
    default List<Delivery> claimDeliveries(List<Delivery> deliveries, String owner, Instant now, Instant leaseUntil) {
        List<Delivery> claimed = new ArrayList<>();
        for (Delivery delivery : deliveries) {
            claimDelivery(delivery, owner, now, leaseUntil).ifPresent(claimed::add);
        }
        return claimed;
    }

    /** Writes an attempt's outcome if {@code owner} still holds the lease; {@code false} when it was lost. */
    boolean recordAttempt(Delivery outcome, String owner);

    /**
     * {@link #recordAttempt} of each outcome, then {@link #claimDeliveries} of {@code next}, in one step where the
     * store can (SQLite: one transaction, so one sync covers them all): the outcomes written (the lease was still
     * {@code owner}'s) and the deliveries claimed, each in the order given.
     */
    default Settled recordAndClaim(List<Delivery> outcomes, String owner, List<Delivery> next, Instant now,
                                   Instant leaseUntil) {
        List<Delivery> recorded = new ArrayList<>();
        for (Delivery outcome : outcomes) {
            if (recordAttempt(outcome, owner)) {
                recorded.add(outcome);
            }
        }
        return new Settled(recorded, claimDeliveries(next, owner, now, leaseUntil));
    }

    /** What {@link #recordAndClaim} wrote: the outcomes (their leases were still held), and the claims. */
    record Settled(List<Delivery> recorded, List<Delivery> claimed) {
        public Settled {
            recorded = List.copyOf(recorded);
            claimed = List.copyOf(claimed);
        }
    }

    /**
     * Calls {@code listener} after each write that put a new event in the outbox is durable, on the store's own
     * thread (it must return at once); the answer removes the listener. A store may call nothing, and then the poll
     * finds new events: DynamoDB does not call, since its outbox index lags and a read at once would not find them.
     */
    default Runnable onNewEvents(Runnable listener) {
        return () -> {
        };
    }

    /** Writes the delivery as given, whatever is stored (a redelivery puts it back in the outbox). */
    void putDelivery(Delivery delivery);

    /** Up to {@code limit} of an endpoint's deliveries of events in {@code [from, to]}, newest first. */
    List<Delivery> deliveries(String endpointId, Instant from, Instant to, int limit);

    /**
     * What the outbox holds now, by a read bounded whatever the backlog: undelivered events plus pending deliveries
     * (a lower bound when {@link OutboxStats#atLeast}), and the oldest of those read.
     */
    OutboxStats outboxStats(Instant now);

    /**
     * The metrics' view of the outbox.
     *
     * @param atLeast the store read a bounded part of a larger outbox: it holds at least {@code pending}, and may hold
     *                older ones than {@code oldest}
     */
    record OutboxStats(long pending, Optional<Instant> oldest, boolean atLeast) {

        public OutboxStats(long pending, Optional<Instant> oldest) {
            this(pending, oldest, false);
        }
    }
}

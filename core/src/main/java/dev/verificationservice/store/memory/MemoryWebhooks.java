package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookEvent;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.time.Instants;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Webhook endpoints, deliveries and the outbox in memory. The outbox's events are the audit entries still marked
 * undelivered ({@link MemoryAudit}); its deliveries are the PENDING ones.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Endpoints by id; a replacement is written only while the stored version is the expected one.</li>
 *   <li>Fan-out, event after event of a batch, under one hold of the lock: each delivery not stored yet is stored
 *   (an existing one is left as it is), then the entry is marked delivered; repeated, it changes nothing.</li>
 *   <li>Due deliveries: one endpoint's PENDING deliveries whose next attempt (to the millisecond) is not after
 *   {@code now}, by that time.</li>
 *   <li>Claim: only a PENDING delivery, due at {@code now}, with no lease or a lease ended before {@code now}, is
 *   leased to the owner. An attempt's outcome is written only while the owner still holds the lease. Claims of a
 *   batch, and outcomes with the next claims, under one hold of the lock.</li>
 *   <li>New events: no call to a listener; the relay's poll finds them.</li>
 *   <li>Listing: an endpoint's deliveries of events in {@code [from, to]}, newest event first.</li>
 * </ol>
 */
final class MemoryWebhooks implements WebhookRepository {

    /** A delivery's key: the endpoint, then the event's time and id, as the table sorts them. */
    private record Key(String endpointId, Instant occurredAt, String eventId) {

        static final Comparator<Key> ORDER = Comparator.comparing(Key::endpointId).thenComparing(Key::occurredAt)
                .thenComparing(Key::eventId);

        static Key of(String endpointId, WebhookEvent event) {
            return new Key(endpointId, Instants.toMillis(event.occurredAt()), event.eventId());
        }

        static Key of(Delivery delivery) {
            return of(delivery.endpointId(), delivery.event());
        }
    }

    private final Object lock;
    private final MemoryAudit audit;
    private final TreeMap<String, WebhookEndpoint> endpoints = new TreeMap<>();
    private final TreeMap<Key, Delivery> deliveries = new TreeMap<>(Key.ORDER);

    MemoryWebhooks(Object lock, MemoryAudit audit) {
        this.lock = lock;
        this.audit = audit;
    }

    @Override
    public boolean insertEndpoint(WebhookEndpoint endpoint) {
        synchronized (lock) {
            return audit.subscriptions().changedIf(endpoints.putIfAbsent(endpoint.endpointId(), endpoint) == null);
        }
    }

    @Override
    public Optional<WebhookEndpoint> findEndpoint(String endpointId) {
        synchronized (lock) {
            return Optional.ofNullable(endpoints.get(endpointId));
        }
    }

    @Override
    public long endpointWrites() {
        return audit.subscriptions().endpointWrites();
    }

    @Override
    public List<WebhookEndpoint> listEndpoints() {
        synchronized (lock) {
            return List.copyOf(endpoints.values());
        }
    }

    @Override
    public boolean replaceEndpoint(WebhookEndpoint updated, long expectedVersion) {
        synchronized (lock) {
            WebhookEndpoint stored = endpoints.get(updated.endpointId());
            if (stored == null || stored.version() != expectedVersion) {
                return false;
            }
            endpoints.put(updated.endpointId(), updated);
            return audit.subscriptions().changedIf(true);
        }
    }

    @Override
    public boolean deleteEndpoint(String endpointId) {
        synchronized (lock) {
            return audit.subscriptions().changedIf(endpoints.remove(endpointId) != null);
        }
    }

    @Override
    public List<AuditEntry> undeliveredEvents(int limit) {
        synchronized (lock) {
            return audit.undelivered().stream().limit(limit).toList();
        }
    }

    @Override
    public void fanOut(List<FanOut> events) {
        synchronized (lock) {
            for (FanOut event : events) {
                event.deliveries().forEach(delivery -> deliveries.putIfAbsent(Key.of(delivery), delivery));
                audit.markDelivered(event.entry());
            }
        }
    }

    /** When a PENDING delivery is due: its next attempt, or its event's time when it names none. */
    private static Instant dueAt(Delivery delivery) {
        return Instants.toMillis(delivery.nextAttemptAt().orElse(delivery.event().occurredAt()));
    }

    private Stream<Delivery> pending() {
        return deliveries.values().stream().filter(delivery -> delivery.status() == DeliveryStatus.PENDING);
    }

    @Override
    public List<Delivery> dueDeliveries(String endpointId, Instant now, int limit) {
        synchronized (lock) {
            return pending().filter(delivery -> delivery.endpointId().equals(endpointId))
                    .filter(delivery -> !dueAt(delivery).isAfter(Instants.toMillis(now)))
                    .sorted(Comparator.comparing(MemoryWebhooks::dueAt)).limit(limit).toList();
        }
    }

    @Override
    public Optional<Delivery> findDelivery(String endpointId, Instant occurredAt, String eventId) {
        synchronized (lock) {
            return Optional.ofNullable(deliveries.get(new Key(endpointId, Instants.toMillis(occurredAt), eventId)));
        }
    }

    @Override
    public Optional<Delivery> claimDelivery(Delivery delivery, String owner, Instant now, Instant leaseUntil) {
        synchronized (lock) {
            Optional<Delivery> claimed = Optional.ofNullable(deliveries.get(Key.of(delivery)))
                    .filter(current -> current.status() == DeliveryStatus.PENDING)
                    .filter(current -> current.nextAttemptAt().map(due -> !due.isAfter(now)).orElse(true))
                    .filter(current -> current.leaseUntil().map(until -> until.isBefore(now)).orElse(true))
                    .map(current -> current.leasedTo(owner, leaseUntil));
            claimed.ifPresent(this::putDelivery);
            return claimed;
        }
    }

    @Override
    public List<Delivery> claimDeliveries(List<Delivery> due, String owner, Instant now, Instant leaseUntil) {
        synchronized (lock) {
            return WebhookRepository.super.claimDeliveries(due, owner, now, leaseUntil);
        }
    }

    @Override
    public Settled recordAndClaim(List<Delivery> outcomes, String owner, List<Delivery> next, Instant now,
                                  Instant leaseUntil) {
        synchronized (lock) {
            return WebhookRepository.super.recordAndClaim(outcomes, owner, next, now, leaseUntil);
        }
    }

    @Override
    public boolean recordAttempt(Delivery outcome, String owner) {
        synchronized (lock) {
            boolean held = Optional.ofNullable(deliveries.get(Key.of(outcome))).flatMap(Delivery::leaseOwner)
                    .filter(owner::equals).isPresent();
            if (held) {
                putDelivery(outcome);
            }
            return held;
        }
    }

    @Override
    public void putDelivery(Delivery delivery) {
        synchronized (lock) {
            deliveries.put(Key.of(delivery), delivery);
        }
    }

    @Override
    public List<Delivery> deliveries(String endpointId, Instant from, Instant to, int limit) {
        synchronized (lock) {
            Key lowest = new Key(endpointId, Instants.toMillis(from), "");
            Key upper = new Key(endpointId, Instants.toMillis(to).plusMillis(1), "");
            if (Key.ORDER.compare(lowest, upper) >= 0) {
                return List.of();
            }
            return deliveries.subMap(lowest, true, upper, false).descendingMap().values().stream().limit(limit)
                    .toList();
        }
    }

    @Override
    public OutboxStats outboxStats(Instant now) {
        synchronized (lock) {
            List<Instant> times = Stream.concat(audit.undelivered().stream().map(AuditEntry::timestamp),
                    pending().map(delivery -> delivery.event().occurredAt())).toList();
            return new OutboxStats(times.size(), times.stream().min(Comparator.naturalOrder()));
        }
    }

    /** Every stored delivery, for the raw view of the tests. */
    List<Delivery> stored() {
        synchronized (lock) {
            return List.copyOf(deliveries.values());
        }
    }
}

package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Which audit entries are events: the one rule every store's audit write consults ({@link #isEvent}), so that an
 * entry enters the outbox only when an endpoint will take it. An entry is an event when some endpoint, enabled or
 * disabled, subscribes to its type (a disabled endpoint's events are kept as failed deliveries, for a redelivery once
 * it is enabled again); while webhooks are off ({@link #off}) none is.
 *
 * <p><b>Algorithm.</b> The endpoints are read through the store's own port ({@link WebhookRepository#listEndpoints},
 * one Query of the {@code WEBHOOKS} partition) into a view of the subscribed types:
 * <ol>
 *   <li>at the first consult, and again at the first consult whose entry's timestamp is {@link #refreshEvery} past
 *   the last read (one thread reads; the others answer from the view they have, or, before any, say "an event");</li>
 *   <li>at once after each endpoint write of this store object ({@link #endpointsChanged}): the view read after a
 *   change replaces any read that started before it, so a slow periodic read never brings a stale list back;</li>
 *   <li>a read that fails makes every entry an event until the next read is due: more events, never fewer.</li>
 * </ol>
 * So an endpoint registered through another store object (another instance) receives the events written here from at
 * most one refresh interval after its registration; on the instance that registered it, at once.
 */
public final class EventSubscriptions {

    public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(30);

    /** The types subscribed when the endpoints were read, {@code all} when one takes every type. */
    private record View(boolean all, Set<String> types, Instant readAt, long generation) {

        static View of(List<WebhookEndpoint> endpoints, Instant readAt, long generation) {
            Set<String> types = new HashSet<>();
            for (WebhookEndpoint endpoint : endpoints) {
                if (endpoint.eventTypes().isEmpty()) {
                    return new View(true, Set.of(), readAt, generation);
                }
                types.addAll(endpoint.eventTypes());
            }
            return new View(false, Set.copyOf(types), readAt, generation);
        }

        boolean takes(String eventType) {
            return all || types.contains(eventType);
        }
    }

    private final Supplier<List<WebhookEndpoint>> endpoints;
    private final AtomicBoolean reading = new AtomicBoolean();
    /** Counts this object's endpoint writes: a view read before the latest one is never kept. */
    private final AtomicLong changes = new AtomicLong();
    private volatile View view;
    private volatile Duration refresh = DEFAULT_REFRESH;
    private volatile boolean off;

    /** The view of the endpoints {@code endpoints} lists (a store's own {@link WebhookRepository#listEndpoints}). */
    public EventSubscriptions(Supplier<List<WebhookEndpoint>> endpoints) {
        this.endpoints = endpoints;
    }

    /** Webhooks are off: from now on no entry is an event. Called once, before the store takes traffic. */
    public void off() {
        off = true;
    }

    /** How long a read of the endpoints is used before the next consult reads them again. */
    public void refreshEvery(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the subscriptions' refresh interval must be positive");
        }
        refresh = interval;
    }

    public Duration refreshInterval() {
        return refresh;
    }

    /** Whether the entry enters the outbox: some endpoint subscribes to its type (see the class comment). */
    public boolean isEvent(AuditEntry entry) {
        if (off) {
            return false;
        }
        View current = view;
        Instant at = entry.timestamp();
        if (current == null || !at.isBefore(current.readAt().plus(refresh))) {
            current = readIfNobodyIs(at, current);
        }
        return current == null || current.takes(EventTypes.of(entry.eventType()));
    }

    /** An endpoint was written through this store object: read the endpoints again at once. */
    public void endpointsChanged() {
        changes.incrementAndGet();
        if (off) {
            return;
        }
        View current = view;
        read(current == null ? Instant.MIN : current.readAt());
    }

    /** How many endpoint writes this store object has made: a copy of an endpoint read before the latest is stale. */
    public long endpointWrites() {
        return changes.get();
    }

    /** {@link #endpointsChanged} when {@code written}, for a store's endpoint write to answer through. */
    public boolean changedIf(boolean written) {
        if (written) {
            endpointsChanged();
        }
        return written;
    }

    private View readIfNobodyIs(Instant at, View current) {
        if (!reading.compareAndSet(false, true)) {
            return current;
        }
        try {
            return read(at);
        } finally {
            reading.set(false);
        }
    }

    private View read(Instant at) {
        long generation = changes.get();
        View read;
        try {
            read = View.of(endpoints.get(), at, generation);
        } catch (RuntimeException e) {
            // Failing open: an entry that is an event needlessly costs a fan-out; one that is not is never delivered.
            read = new View(true, Set.of(), at, generation);
        }
        View candidate = read;
        synchronized (this) {
            View kept = view;
            if (kept == null || kept.generation() < candidate.generation()
                    || (kept.generation() == candidate.generation() && !candidate.readAt().isBefore(kept.readAt()))) {
                view = candidate;
            }
            return view;
        }
    }
}

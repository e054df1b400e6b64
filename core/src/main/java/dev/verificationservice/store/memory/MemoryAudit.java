package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.time.Instants;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The audit log in memory, and the outbox of events, which is the same entries.
 *
 * <p><b>The outbox rule.</b> An entry of a type some endpoint subscribes to ({@link EventSubscriptions}) is stored undelivered ({@link StoredEntry#undelivered}), by whichever write
 * carries it ({@link #add}): an appended entry, or the entry of a consumed code, a registered device, an enrolled or
 * confirmed factor, an accepted step, a used or issued recovery code. The fan-out ({@link MemoryWebhooks#fanOut})
 * alone marks it delivered. This store lives in the core, without the table model whose audit item carries the same
 * rule, so it keeps the rule here.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Entries are keyed by user, timestamp (to the millisecond, as the table's fixed-width text) and entryId, in
 *   that order, which is the order of the table's sort key.</li>
 *   <li>Append: a free key takes the entry; a key holding this very entry is a retry (true); another entry's is a
 *   collision (false: the caller picks another entryId).</li>
 *   <li>Query: the user's entries in {@code [from, to]}, before the cursor's position if one is given, retained at
 *   {@code now}, newest first, up to the limit.</li>
 * </ol>
 */
final class MemoryAudit implements AuditRepository {

    /** An entry as the store keeps it: undelivered until its fan-out. */
    record StoredEntry(AuditEntry entry, boolean undelivered) {
    }

    private record Key(String userId, Instant timestamp, String entryId) {

        static final Comparator<Key> ORDER = Comparator.comparing(Key::userId).thenComparing(Key::timestamp)
                .thenComparing(Key::entryId);

        static Key of(AuditEntry entry) {
            return new Key(entry.userId(), Instants.toMillis(entry.timestamp()), entry.entryId());
        }
    }

    private final Object lock;
    private final TreeMap<Key, StoredEntry> entries = new TreeMap<>(Key.ORDER);
    private final EventSubscriptions subscriptions;

    MemoryAudit(Object lock, Supplier<List<WebhookEndpoint>> endpoints) {
        this.lock = lock;
        this.subscriptions = new EventSubscriptions(endpoints);
    }

    EventSubscriptions subscriptions() {
        return subscriptions;
    }

    @Override
    public boolean appendAudit(AuditEntry entry) {
        synchronized (lock) {
            StoredEntry stored = entries.get(Key.of(entry));
            if (stored == null) {
                add(entry);
                return true;
            }
            return stored.entry().equals(entry);
        }
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                       int limit, Instant now) {
        Key lowest = new Key(userId, Instants.toMillis(from), "");
        Key upper = new Key(userId, Instants.toMillis(to).plusMillis(1), "");
        if (before.isPresent()) {
            Key position = new Key(userId, Instants.toMillis(before.get().timestamp()), before.get().entryId());
            upper = Key.ORDER.compare(position, upper) < 0 ? position : upper;
        }
        if (Key.ORDER.compare(lowest, upper) >= 0) {
            return List.of();
        }
        synchronized (lock) {
            List<AuditEntry> page = new ArrayList<>();
            for (StoredEntry stored : entries.subMap(lowest, true, upper, false).descendingMap().values()) {
                if (page.size() == limit) {
                    break;
                }
                if (stored.entry().isRetainedAt(now)) {
                    page.add(stored.entry());
                }
            }
            return page;
        }
    }

    // What the other parts of the store do with entries, always under the store's lock.

    /** Refuses (nothing written) a write whose entry's key is taken: the write carrying it must be whole or nothing. */
    void requireFree(AuditEntry entry, String what) {
        if (entries.containsKey(Key.of(entry))) {
            throw new StoreException("the audit key of this " + what + " is taken; nothing was written, retry");
        }
    }

    /** Whether this very entry is stored (a write that carried it ran before). */
    boolean holds(AuditEntry entry) {
        StoredEntry stored = entries.get(Key.of(entry));
        return stored != null && stored.entry().equals(entry);
    }

    /** Stores the entry, undelivered when it is an event. The key must be free ({@link #requireFree}). */
    void add(AuditEntry entry) {
        entries.put(Key.of(entry), new StoredEntry(entry, subscriptions.isEvent(entry)));
    }

    /** Every undelivered entry, oldest first. */
    List<AuditEntry> undelivered() {
        return entries.values().stream().filter(StoredEntry::undelivered).map(StoredEntry::entry)
                .sorted(Comparator.comparing((AuditEntry entry) -> Instants.toMillis(entry.timestamp()))
                        .thenComparing(AuditEntry::userId).thenComparing(AuditEntry::entryId))
                .toList();
    }

    /** Takes the entry out of the outbox, if it is stored and still in it. */
    void markDelivered(AuditEntry entry) {
        entries.computeIfPresent(Key.of(entry), (key, stored) -> new StoredEntry(stored.entry(), false));
    }

    /** Every stored entry, for the raw view of the tests. */
    List<StoredEntry> stored() {
        synchronized (lock) {
            return List.copyOf(entries.values());
        }
    }
}

package dev.verificationservice.store.dynamodb;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.EventIds;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.TableKeys;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Which of the {@value TableKeys#OUTBOX_SHARDS} event shards of the outbox index a look reads, so that an idle relay
 * does not query them all on every poll, and which audit entries enter the outbox ({@link EventSubscriptions}).
 *
 * <p><b>Algorithm.</b> A look reads the shards this instance wrote an event to during its last
 * {@value #HINTED_LOOKS} looks (the index lags, so one look right after the write may not find it yet), a shard
 * whose last read answered a full page (more may wait), and {@value #ROTATION} more in turn, so that events another
 * instance wrote (one that stopped before its relay took them, or the previous release's under
 * {@code OUTBOX#EVENT#0..3}) are found within {@value TableKeys#OUTBOX_SHARDS} / {@value #ROTATION} looks. Idle, a
 * look costs {@value #ROTATION} queries. The hints are in this process only: a lost hint delays an event to its
 * shard's turn, never loses it; and a new instance's first look reads every shard, so what an instance left behind
 * when it stopped is taken at the next start.
 */
final class OutboxLooks {

    /** Shards read in turn on every look, beside the hinted ones. */
    static final int ROTATION = 4;
    /** Looks that read a shard after this instance wrote an event to it: longer than the index lags. */
    static final int HINTED_LOOKS = 3;

    private final AtomicIntegerArray hinted = new AtomicIntegerArray(TableKeys.OUTBOX_SHARDS);
    private final AtomicInteger turn = new AtomicInteger();
    /** Which audit entries enter the outbox; set once by the store, which owns the endpoints it reads. */
    private volatile EventSubscriptions subscriptions;

    OutboxLooks() {
        for (int shard = 0; shard < TableKeys.OUTBOX_SHARDS; shard++) {
            hinted.set(shard, 1);
        }
    }

    void subscriptions(EventSubscriptions view) {
        subscriptions = view;
    }

    EventSubscriptions subscriptions() {
        return subscriptions;
    }

    /** The entry's item, in the outbox when it is an event, its shard hinted for this instance's next looks. */
    Map<String, Object> auditItem(AuditEntry entry) {
        boolean event = subscriptions.isEvent(entry);
        if (event) {
            hinted.set(TableKeys.outboxShard(EventIds.of(entry)), HINTED_LOOKS);
        }
        return AuditItems.auditItem(entry, event);
    }

    /** The shards of the next look: the hinted ones, then the next {@value #ROTATION} in turn. */
    List<Integer> nextLook() {
        Set<Integer> shards = new LinkedHashSet<>();
        for (int shard = 0; shard < TableKeys.OUTBOX_SHARDS; shard++) {
            if (hinted.getAndUpdate(shard, left -> Math.max(0, left - 1)) > 0) {
                shards.add(shard);
            }
        }
        int start = turn.getAndAdd(ROTATION);
        for (int i = 0; i < ROTATION; i++) {
            shards.add(Math.floorMod(start + i, TableKeys.OUTBOX_SHARDS));
        }
        return new ArrayList<>(shards);
    }

    /** A read of the shard answered a full page, or was not made this look: read it on the next look too. */
    void again(int shard) {
        hinted.accumulateAndGet(shard, 1, Math::max);
    }
}

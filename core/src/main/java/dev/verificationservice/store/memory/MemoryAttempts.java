package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import java.util.Optional;

/**
 * The one attempt write of this store, which consuming a code, confirming a factor, accepting a TOTP step and using a
 * recovery code share. Each of them decides its condition and whether the item carries this attempt's id; this class
 * decides the rest, under the store's lock, so the whole step is atomic.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>The condition holds: the entry's key must be free (else a StoreException and nothing is written); then the
 *   change is applied, the entry stored (and so its event), and the attempt's place given back. Won.</li>
 *   <li>The condition fails, but the item carries this attempt's id: this attempt won before and its answer was
 *   lost (a retry). Won again; nothing is written.</li>
 *   <li>Otherwise refused; nothing is written.</li>
 * </ol>
 */
final class MemoryAttempts {

    private final MemoryAudit audit;
    private final MemoryCounters counters;

    MemoryAttempts(MemoryAudit audit, MemoryCounters counters) {
        this.audit = audit;
        this.counters = counters;
    }

    /**
     * Runs the attempt write; the caller holds the store's lock. True when the attempt won (now or before).
     *
     * @param what names the write in a failure's message
     */
    boolean write(boolean conditionHolds, boolean wonBefore, AuditEntry entry, Optional<Place> placeToGiveBack,
                  String what, Runnable change) {
        if (!conditionHolds) {
            return wonBefore;
        }
        audit.requireFree(entry, what);
        change.run();
        audit.add(entry);
        placeToGiveBack.ifPresent(counters::givePlaceBack);
        return true;
    }
}

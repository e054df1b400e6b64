package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.totp.TotpFactor;
import java.util.List;

/**
 * What the reference store holds, read at one moment under its lock: a test's raw view of the table, for the facts
 * no port reads (every subject's counters together, a counter's marks, a cooldown).
 */
public final class MemoryTable {

    private final MemoryVerificationStore store;

    public MemoryTable(MemoryVerificationStore store) {
        this.store = store;
    }

    /** The places held now in every window of an action, all subjects together. */
    public long held(String action) {
        return counters(action).stream().mapToLong(MemoryCounters.Counter::count).sum();
    }

    private List<MemoryCounters.Counter> counters(String action) {
        return store.contents().counters().stream().filter(counter -> counter.window().action().equals(action))
                .toList();
    }

    /** Whether a cooldown of the user's action is claimed (and not released). */
    public boolean cooldownClaimed(String userId, String action) {
        return store.contents().cooldowns().stream()
                .anyMatch(cooldown -> cooldown.userId().equals(userId) && cooldown.action().equals(action));
    }

    /** Every stored code, of every user. */
    public List<VerificationCode> codes() {
        return store.contents().codes().stream().map(MemoryCodes.StoredCode::code).toList();
    }

    /** Every stored factor, of every user: what a scan of the table would find. */
    public List<TotpFactor> factors() {
        return store.contents().factors().stream().map(MemoryTotpFactors.StoredFactor::factor).toList();
    }

    /** Every stored recovery code, of every user. */
    public List<RecoveryCode> recoveryCodes() {
        return store.contents().recoveryCodes().stream().map(MemoryRecoveryCodes.StoredCode::code).toList();
    }

    /** Every audit entry, of every user. */
    public List<AuditEntry> auditEntries() {
        return store.contents().audit().stream().map(MemoryAudit.StoredEntry::entry).toList();
    }
}

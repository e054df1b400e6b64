package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Recovery codes in memory, by user and digest.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Replace a set: unless the user's current set is the one read or already the new one (a retry), nothing is
 *   written and the answer is false; the {@code RECOVERY_CODES_ISSUED} entry already stored as this very entry is a
 *   retry (not written again); its key taken by another entry is a StoreException with nothing written; then the
 *   voided codes are deleted, the issued ones stored where absent (a retry finds its own), the entry stored and the
 *   new set made current.</li>
 *   <li>Use ({@link MemoryAttempts}): the condition is a stored code of the named set, not used; the change marks it
 *   used at {@code now} by this attempt, whose retry wins again.</li>
 *   <li>Find and delete: the user's codes by digest, used ones and older sets' included.</li>
 * </ol>
 */
final class MemoryRecoveryCodes implements RecoveryCodeRepository {

    /** A code as the store keeps it: with the attempt that used it, if one did. */
    record StoredCode(RecoveryCode code, Optional<String> usedBy) {
    }

    private record Key(String userId, String digest) {
    }

    private final Object lock;
    private final MemoryAudit audit;
    private final MemoryAttempts attempts;
    private final Map<Key, StoredCode> codes = new LinkedHashMap<>();
    /** Each user's current set: kept when the codes are deleted, as the other stores keep their marker. */
    private final Map<String, String> currentSets = new LinkedHashMap<>();

    MemoryRecoveryCodes(Object lock, MemoryAudit audit, MemoryAttempts attempts) {
        this.lock = lock;
        this.audit = audit;
        this.attempts = attempts;
    }

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        synchronized (lock) {
            return Optional.ofNullable(currentSets.get(userId));
        }
    }

    @Override
    public boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        String userId = replacement.userId();
        AuditEntry issuedEntry = replacement.issuedEntry();
        synchronized (lock) {
            Optional<String> current = Optional.ofNullable(currentSets.get(userId));
            if (!current.equals(replacement.replaces()) && !current.equals(Optional.of(replacement.setId()))) {
                return false;
            }
            boolean retried = audit.holds(issuedEntry);
            if (!retried) {
                audit.requireFree(issuedEntry, "recovery-code issue");
            }
            replacement.voided().forEach(code -> codes.remove(new Key(userId, code.digest())));
            replacement.issued().forEach(code -> codes.putIfAbsent(new Key(userId, code.digest()),
                    new StoredCode(code, Optional.empty())));
            if (!retried) {
                audit.add(issuedEntry);
            }
            currentSets.put(userId, replacement.setId());
            return true;
        }
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        synchronized (lock) {
            return codes.values().stream().map(StoredCode::code).filter(code -> code.userId().equals(userId))
                    .sorted(Comparator.comparing(RecoveryCode::digest)).toList();
        }
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        Key key = new Key(use.userId(), use.digest());
        synchronized (lock) {
            StoredCode stored = codes.get(key);
            Optional<RecoveryCode> current = Optional.ofNullable(stored).map(StoredCode::code);
            boolean holds = current.filter(code -> !code.used() && code.setId().equals(use.setId())).isPresent();
            boolean wonBefore = stored != null && stored.usedBy().equals(Optional.of(use.attemptId()));
            boolean won = attempts.write(holds, wonBefore, use.used(), use.placeToGiveBack(), "recovery-code use",
                    () -> codes.put(key, new StoredCode(new RecoveryCode(stored.code().userId(), stored.code().digest(),
                            stored.code().setId(), stored.code().issuedAt(), true, Optional.of(use.now())),
                            Optional.of(use.attemptId()))));
            return won ? new RecoveryUseOutcome.Used() : new RecoveryUseOutcome.Refused(current);
        }
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        synchronized (lock) {
            List<RecoveryCode> doomed = findRecoveryCodes(userId);
            doomed.forEach(code -> codes.remove(new Key(userId, code.digest())));
            return doomed;
        }
    }

    /** Each user's current set, for the raw view of the tests. */
    Map<String, String> currentSets() {
        synchronized (lock) {
            return Map.copyOf(currentSets);
        }
    }

    /** Every stored code, for the raw view of the tests. */
    List<StoredCode> stored() {
        synchronized (lock) {
            return List.copyOf(codes.values());
        }
    }
}

package dev.verificationservice.store;

import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A store's recovery codes with another request's write slipped in right after a read of the user's current set
 * ({@link #afterNextRecoverySetRead}), or with a replacement that leaves the codes it voids stored, as an issue of a
 * version that did not delete them would ({@link #keepVoidedCodesOnce}).
 */
public final class InterleavedRecoveryCodes implements RecoveryCodeRepository {

    private final RecoveryCodeRepository store;
    private final AtomicReference<Runnable> afterSetRead = new AtomicReference<>(() -> { });
    private final AtomicBoolean keepVoided = new AtomicBoolean();

    public InterleavedRecoveryCodes(RecoveryCodeRepository store) {
        this.store = store;
    }

    /** Runs {@code interloper} once, right after the next read of a user's current set: a write between two reads. */
    public void afterNextRecoverySetRead(Runnable interloper) {
        afterSetRead.set(interloper);
    }

    /** The next replacement writes its set and deletes none of the codes it voids. */
    public void keepVoidedCodesOnce() {
        keepVoided.set(true);
    }

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        Optional<String> current = store.currentRecoverySet(userId);
        afterSetRead.getAndSet(() -> { }).run();
        return current;
    }

    @Override
    public boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        if (keepVoided.getAndSet(false)) {
            return store.replaceRecoveryCodes(new RecoveryCodeReplacement(replacement.userId(), replacement.replaces(),
                    replacement.setId(), List.of(), replacement.issued(), replacement.issuedEntry()));
        }
        return store.replaceRecoveryCodes(replacement);
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        return store.findRecoveryCodes(userId);
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        return store.useRecoveryCode(use);
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        return store.deleteRecoveryCodes(userId);
    }
}

package dev.verificationservice.spring.store;

import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import java.util.List;
import java.util.Optional;

/** The store's recovery codes, each call timed. */
record MeteredRecoveryCodes(RecoveryCodeRepository codes, StoreTimers.Port timer) implements RecoveryCodeRepository {

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        return timer.time("currentRecoverySet", () -> codes.currentRecoverySet(userId));
    }

    @Override
    public boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        return timer.time("replaceRecoveryCodes", () -> codes.replaceRecoveryCodes(replacement));
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        return timer.time("findRecoveryCodes", () -> codes.findRecoveryCodes(userId));
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        return timer.time("useRecoveryCode", () -> codes.useRecoveryCode(use));
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        return timer.time("deleteRecoveryCodes", () -> codes.deleteRecoveryCodes(userId));
    }
}

package dev.verificationservice.spring.store;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpRepository;
import java.util.List;
import java.util.Optional;

/** The store's authenticator-app factors, each call timed. */
record MeteredTotp(TotpRepository factors, StoreTimers.Port timer) implements TotpRepository {

    @Override
    public boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors) {
        return timer.time("insertFactor", () -> factors.insertFactor(factor, enrolled, maxFactors));
    }

    @Override
    public List<TotpFactor> findFactors(String userId) {
        return timer.time("findFactors", () -> factors.findFactors(userId));
    }

    @Override
    public Optional<TotpFactor> findFactor(String userId, String factorId) {
        return timer.time("findFactor", () -> factors.findFactor(userId, factorId));
    }

    @Override
    public StepOutcome confirmFactor(StepAcceptance confirmation) {
        return timer.time("confirmFactor", () -> factors.confirmFactor(confirmation));
    }

    @Override
    public StepOutcome acceptStep(StepAcceptance acceptance) {
        return timer.time("acceptStep", () -> factors.acceptStep(acceptance));
    }

    @Override
    public List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        return timer.time("deleteFactors", () -> factors.deleteFactors(userId, factorId));
    }
}

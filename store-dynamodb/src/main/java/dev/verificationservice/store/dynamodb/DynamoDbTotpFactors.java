package dev.verificationservice.store.dynamodb;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpRepository;
import java.util.List;
import java.util.Optional;

/** Authenticator-app factors on DynamoDB: not built yet (issue 18, step 3); every call fails clearly. */
final class DynamoDbTotpFactors implements TotpRepository {

    private final DynamoDbTable table;

    DynamoDbTotpFactors(DynamoDbTable table) {
        this.table = table;
    }

    private static StoreException notYet() {
        return new StoreException("authenticator apps are not available on the DynamoDB store in this build;"
                + " use the embedded store");
    }

    @Override
    public void insertFactor(TotpFactor factor, AuditEntry enrolled) {
        throw notYet();
    }

    @Override
    public List<TotpFactor> findFactors(String userId) {
        throw notYet();
    }

    @Override
    public Optional<TotpFactor> findFactor(String userId, String factorId) {
        throw notYet();
    }

    @Override
    public StepOutcome confirmFactor(StepAcceptance confirmation) {
        throw notYet();
    }

    @Override
    public StepOutcome acceptStep(StepAcceptance acceptance) {
        throw notYet();
    }

    @Override
    public List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        throw notYet();
    }
}

package dev.verificationservice.store.dynamodb;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.store.StoreException;
import java.util.List;

/** Recovery codes on DynamoDB: not built yet (issue 18, step 3); every call fails clearly. */
final class DynamoDbRecoveryCodes implements RecoveryCodeRepository {

    private final DynamoDbTable table;

    DynamoDbRecoveryCodes(DynamoDbTable table) {
        this.table = table;
    }

    private static StoreException notYet() {
        return new StoreException("recovery codes are not available on the DynamoDB store in this build;"
                + " use the embedded store");
    }

    @Override
    public void replaceRecoveryCodes(String userId, List<RecoveryCode> voided, List<RecoveryCode> issued,
                                     AuditEntry issuedEntry) {
        throw notYet();
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        throw notYet();
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        throw notYet();
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        throw notYet();
    }
}

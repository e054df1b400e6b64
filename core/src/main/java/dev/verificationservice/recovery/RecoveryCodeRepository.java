package dev.verificationservice.recovery;

import dev.verificationservice.audit.AuditEntry;
import java.util.List;

/**
 * Storage SPI for recovery codes: items {@code USER#<userId>} / {@code RECOVERY#<digest>}, read with the user's
 * factors by one Query of the user's item collection. Like every SPI here, validity is the domain's, except inside
 * the conditional write, and every write is correct when it runs twice.
 */
public interface RecoveryCodeRepository {

    /**
     * Replaces a user's set in one atomic step: deletes {@code voided} (the codes the caller read), writes
     * {@code issued} and the {@code RECOVERY_CODES_ISSUED} entry. Afterwards all of it is done or none of it. A
     * retry after a lost answer writes the same items again (their keys are the new digests), which is harmless.
     */
    void replaceRecoveryCodes(String userId, List<RecoveryCode> voided, List<RecoveryCode> issued,
                              AuditEntry issuedEntry);

    /** Every stored code of the user, used ones and those of older sets included (a strongly consistent read). */
    List<RecoveryCode> findRecoveryCodes(String userId);

    /** Uses a code once; see {@link RecoveryCodeUse} for the condition. */
    RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use);

    /** Deletes every recovery code of the user and returns what it deleted. */
    List<RecoveryCode> deleteRecoveryCodes(String userId);
}

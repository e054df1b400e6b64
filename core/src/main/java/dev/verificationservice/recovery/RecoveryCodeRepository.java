package dev.verificationservice.recovery;

import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for recovery codes: items {@code USER#<userId>} / {@code RECOVERY#<digest>}, read with the user's
 * factors by one Query of the user's item collection. Like every SPI here, validity is the domain's, except inside
 * the conditional write, and every write is correct when it runs twice.
 */
public interface RecoveryCodeRepository {

    /**
     * The id of the user's current set, which a replacement is conditioned on; empty when the user has had none (or
     * only sets written before this marker existed). A strongly consistent read.
     */
    Optional<String> currentRecoverySet(String userId);

    /**
     * Replaces a user's set in one atomic step on its condition ({@link RecoveryCodeReplacement}). Afterwards all of
     * it is done or none of it. Of concurrent replacements that read the same set (from any number of store
     * instances on one table or file) one is written; a retry of a written one after a lost answer is done again,
     * never refused as a conflict with itself. The {@code RECOVERY_CODES_ISSUED} entry is written together with its
     * undelivered event, in the same atomic step, and a retry after a lost answer leaves exactly one entry and one
     * event ({@link dev.verificationservice.audit.AuditRepository}).
     *
     * @return false when the user's set is no longer the one read: another replacement came first, nothing written
     */
    boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement);

    /** Every stored code of the user, used ones and those of older sets included (a strongly consistent read). */
    List<RecoveryCode> findRecoveryCodes(String userId);

    /**
     * Uses a code once; see {@link RecoveryCodeUse} for the condition. The {@code RECOVERY_CODE_USED} entry is written
     * together with its undelivered event, in the same atomic step, and a retry after a lost answer leaves exactly one
     * entry and one event ({@link dev.verificationservice.audit.AuditRepository}).
     */
    RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use);

    /** Deletes every recovery code of the user and returns what it deleted. */
    List<RecoveryCode> deleteRecoveryCodes(String userId);
}

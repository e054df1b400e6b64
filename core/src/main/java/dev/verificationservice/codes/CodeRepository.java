package dev.verificationservice.codes;

import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for verification codes. Implementations decide nothing about validity except inside the
 * conditional writes, which must carry the condition themselves so that a race with expiry or another
 * consumer cannot slip through. Every write must be correct when it runs twice (a lost answer, a retry):
 * the attempt ids passed in are how a store recognises its own earlier write.
 */
public interface CodeRepository {

    /**
     * Writes a new code only if no item has its key, stamping it with {@code issueId}. Answers {@code true}
     * when the code is stored: written now, or found already written by this same {@code issueId} (a retry
     * whose first answer was lost). {@code false} means another code holds the key: generate a new one.
     */
    boolean insertCode(VerificationCode code, String issueId);

    /** The stored item for a digest, expired or used or not: the caller decides validity. */
    Optional<VerificationCode> findCode(String digest);

    /**
     * Uses up a code together with everything that goes with it (see {@link CodeConsumption}), atomically,
     * on the condition: the item exists, is not used, its ttl is after {@code now}, and its userId and codeType
     * are the expected ones, and no other code of the user and type was made current since ({@link #makeCurrent}),
     * nor were its codes invalidated: such a code is rejected as not found. Of any number of concurrent calls for one code, at most one returns
     * {@link ConsumeOutcome.Consumed}; a retry of the call that won (same {@code attemptId}) returns
     * {@link ConsumeOutcome.Consumed} again and writes nothing more. Of the {@code CODE_VERIFIED} entry it carries:
     * the entry is written together with its undelivered event, in the same atomic step, and a retry after a lost
     * answer leaves exactly one entry and one event ({@link dev.verificationservice.audit.AuditRepository}).
     */
    ConsumeOutcome consumeCode(CodeConsumption consumption);

    /**
     * Makes {@code code} (stored a moment before) the one code of its user and type that may be used, unless a
     * code created later ({@link VerificationCode#mayReplace}) was made current before. From then on no other code of the user and type is consumed
     * ({@link #consumeCode} checks it), whether or not the user index shows them yet. Deletes the code this one
     * replaces, or this one when it lost, and returns what it deleted: empty, the earlier code, or {@code code}.
     * Correct when it runs twice.
     */
    List<VerificationCode> makeCurrent(VerificationCode code);

    /** Deletes every stored code of this user and type and returns what it deleted. */
    default List<VerificationCode> deleteCodes(String userId, CodeType codeType) {
        return deleteCodes(userId, codeType, Optional.empty());
    }

    /**
     * Deletes the stored codes of this user and type (only those of {@code format}, if given) and returns what it
     * deleted. Afterwards none of them is consumed, also where the user index does not show them yet: the
     * current code is cleared on the table itself ({@link #makeCurrent}) and deleted by its key; the index only
     * finds the others to delete, which were no longer usable anyway.
     */
    List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format);

    /**
     * Every stored code of this user and type (through the user index), expired and used ones included. The
     * index may lag behind the table (on DynamoDB it is eventually consistent): a listing, never a rule.
     */
    List<VerificationCode> findCodes(String userId, CodeType codeType);

    /** Deletes one code; used when its delivery failed. */
    void deleteCode(String digest);
}

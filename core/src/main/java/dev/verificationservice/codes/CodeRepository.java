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
     * are the expected ones. Of any number of concurrent calls for one code, at most one returns
     * {@link ConsumeOutcome.Consumed}; a retry of the call that won (same {@code attemptId}) returns
     * {@link ConsumeOutcome.Consumed} again and writes nothing more.
     */
    ConsumeOutcome consumeCode(CodeConsumption consumption);

    /** Deletes every stored code of this user and type (through the user index) and returns what it deleted. */
    List<VerificationCode> deleteCodes(String userId, CodeType codeType);

    /** Every stored code of this user and type (through the user index), expired and used ones included. */
    List<VerificationCode> findCodes(String userId, CodeType codeType);

    /** Deletes one code; used when its delivery failed. */
    void deleteCode(String digest);
}

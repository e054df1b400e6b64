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
     * Stores a new code (a send, after admission) as the one code of its user and type that may be used, unless a
     * code created later ({@link VerificationCode#mayReplace}) is current already, in as few writes as the store
     * can: on DynamoDB a NUMERIC code is written into the user's code slot, over the code it replaces, in one
     * conditional write. From then on no other code of the user and type is consumed ({@link #consumeCode}
     * checks it), whether or not the user index shows them yet. {@code issueId} stamps the code: the same call
     * sent again (a retry whose first answer was lost) is recognised as stored, whereas another code holding the
     * same key is {@link CodePlacement.KeyTaken}.
     */
    CodePlacement placeCode(VerificationCode code, String issueId);

    /**
     * The code stored under a digest, expired or used or not: the caller decides validity. For a LINK code, which
     * is found by the code alone.
     */
    Optional<VerificationCode> findCode(String digest);

    /**
     * The user's code of a type under this digest, expired or used or not, if it is the user's current code (a
     * NUMERIC code, found from the user, the type and the code): the caller decides validity.
     */
    Optional<VerificationCode> findCurrentCode(String userId, CodeType codeType, String digest);

    /**
     * Uses up a code together with everything that goes with it (see {@link CodeConsumption}), atomically,
     * on the condition: the item exists, is not used, its ttl is after {@code now}, and its userId and codeType
     * are the expected ones, and no other code of the user and type was made current since ({@link #placeCode}),
     * nor were its codes invalidated: such a code is rejected as not found. Of any number of concurrent calls for one code, at most one returns
     * {@link ConsumeOutcome.Consumed}; a retry of the call that won (same {@code attemptId}) returns
     * {@link ConsumeOutcome.Consumed} again and writes nothing more. Of the {@code CODE_VERIFIED} entry it carries:
     * the entry is written together with its undelivered event, in the same atomic step, and a retry after a lost
     * answer leaves exactly one entry and one event ({@link dev.verificationservice.audit.AuditRepository}).
     */
    ConsumeOutcome consumeCode(CodeConsumption consumption);

    /** Deletes every stored code of this user and type and returns what it deleted. */
    default List<VerificationCode> deleteCodes(String userId, CodeType codeType) {
        return deleteCodes(userId, codeType, Optional.empty());
    }

    /**
     * Deletes the stored codes of this user and type (only those of {@code format}, if given) and returns what it
     * deleted. Afterwards none of them is consumed, also where the user index does not show them yet: the
     * current code is cleared on the table itself ({@link #placeCode}) and deleted by its key; the index only
     * finds the others to delete, which were no longer usable anyway.
     */
    List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format);

    /**
     * Every stored code of this user and type (through the user index), expired and used ones included. The
     * index may lag behind the table (on DynamoDB it is eventually consistent): a listing, never a rule.
     */
    List<VerificationCode> findCodes(String userId, CodeType codeType);

    /**
     * Deletes one code (its delivery failed, or it was replaced), if it is still stored: afterwards it is not
     * consumed. Correct when it runs twice.
     */
    void deleteCode(VerificationCode code);
}

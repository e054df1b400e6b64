package dev.verificationservice.codes;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for verification codes. Implementations decide nothing about validity except inside the
 * conditional writes, which must carry the condition themselves so that a race with expiry or another
 * consumer cannot slip through.
 */
public interface CodeRepository {

    /** Writes a new code only if no item has its key; {@code false} on a key collision (regenerate). */
    boolean insertCode(VerificationCode code);

    /** The stored item for a digest, expired or used or not: the caller decides validity. */
    Optional<VerificationCode> findCode(String digest);

    /**
     * Marks the code used in one atomic conditional write whose condition is: the item exists, is not
     * used, its ttl is after {@code now}, and it matches {@code expectation}. Of any number of concurrent
     * calls for one code, at most one returns {@link ConsumeOutcome.Consumed}.
     */
    ConsumeOutcome consumeCode(String digest, CodeExpectation expectation, Instant now);

    /** Deletes every stored code of this user and type (through the user index) and returns what it deleted. */
    List<VerificationCode> deleteCodes(String userId, CodeType codeType);

    /** Every stored code of this user and type (through the user index), expired and used ones included. */
    List<VerificationCode> findCodes(String userId, CodeType codeType);

    /** Deletes one code; used when its delivery failed. */
    void deleteCode(String digest);
}

package dev.verificationservice.codes;

import java.util.Optional;

/** Every outcome of the one conditional write that uses up a code. */
public sealed interface ConsumeOutcome {

    /**
     * The code is now used, by this attempt, and its audit entry written (the consumption's userId and
     * codeType were part of the condition). Also the answer to a retry of the same attempt whose first
     * answer was lost.
     */
    record Consumed() implements ConsumeOutcome {
    }

    /**
     * The condition failed: the item is missing, used (by another attempt), expired, or belongs to another
     * user or type. Nothing was written.
     * {@code current} is the item as it is in the store (empty when there is none), so the caller can
     * say why without another read.
     */
    record Rejected(Optional<VerificationCode> current) implements ConsumeOutcome {
    }
}

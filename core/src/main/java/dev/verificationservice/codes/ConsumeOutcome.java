package dev.verificationservice.codes;

import java.util.Optional;

/** Every outcome of the one conditional write that uses up a code. */
public sealed interface ConsumeOutcome {

    /** The condition held and the code is now marked used; {@code code} is the item after the write. */
    record Consumed(VerificationCode code) implements ConsumeOutcome {
    }

    /**
     * The condition failed: the item is missing, used, expired, or belongs to another user or type.
     * {@code current} is the item as it is in the store (empty when there is none), so the caller can
     * say why without another read.
     */
    record Rejected(Optional<VerificationCode> current) implements ConsumeOutcome {
    }
}

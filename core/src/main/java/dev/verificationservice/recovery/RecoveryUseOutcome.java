package dev.verificationservice.recovery;

import java.util.Optional;

/** Every outcome of the one conditional write that uses a recovery code. */
public sealed interface RecoveryUseOutcome {

    /** The code is now used, by this attempt (or a retry of it), and its audit entry written. */
    record Used() implements RecoveryUseOutcome {
    }

    /**
     * The condition failed: the code is gone (its set replaced), of another set, or used by another attempt.
     * Nothing was written; {@code current} is the item as it is now, if any.
     */
    record Refused(Optional<RecoveryCode> current) implements RecoveryUseOutcome {
    }
}

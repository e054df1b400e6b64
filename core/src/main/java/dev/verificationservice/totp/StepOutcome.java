package dev.verificationservice.totp;

import java.util.Optional;

/** Every outcome of the one conditional write that accepts a time step (or confirms a factor with one). */
public sealed interface StepOutcome {

    /** The step is accepted, by this attempt or a retry of it, and its audit entry written. */
    record Accepted() implements StepOutcome {
    }

    /**
     * The condition failed: the factor is gone, or (accept) not confirmed or already past this step, or (confirm)
     * confirmed already or expired. Nothing was written; {@code current} is the item as it is now, if any.
     */
    record Refused(Optional<TotpFactor> current) implements StepOutcome {
    }
}

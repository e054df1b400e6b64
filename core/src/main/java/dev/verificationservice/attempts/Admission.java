package dev.verificationservice.attempts;

import dev.verificationservice.ratelimit.RateLimitDecision;

/** Whether an attempt at a factor may be tested: {@link CountedFactor#begin}. */
public sealed interface Admission {

    /** Tested: the attempt holds its places until its outcome is known ({@link Attempt}). */
    record Admitted(Attempt attempt) implements Admission {
    }

    /**
     * Not tested, and holding no place: {@code lockOut} is the limit that refuses it (the window, or the wrong answers
     * in a row), with when it ends. {@code fromMemory}: answered from this instance's memory of a lock-out the store
     * refused moments before, with no store call; such a refusal is not audited (the store's refusal was), only
     * counted ({@link CountedAttempts#refusedFromMemory}), so a flood of guesses against a locked-out user writes
     * nothing into that user's partitions.
     */
    record Refused(RateLimitDecision lockOut, boolean fromMemory) implements Admission {

        /** Whether the refusal gets an audit entry of its own: every one the store answered. */
        public boolean audited() {
            return !fromMemory;
        }
    }
}

package dev.verificationservice.attempts;

import dev.verificationservice.ratelimit.RateLimitDecision;

/** Whether an attempt at a factor may be tested: {@link CountedFactor#begin}. */
public sealed interface Admission {

    /** Tested: the attempt holds its places until its outcome is known ({@link Attempt}). */
    record Admitted(Attempt attempt) implements Admission {
    }

    /**
     * Not tested, and holding no place: {@code lockOut} is the limit that refuses it (the window, or the wrong answers
     * in a row), with when it ends. The store answered it (a lock-out this instance remembers is answered before,
     * with no store call: {@link CountedFactor#knownLockOut}).
     */
    record Refused(RateLimitDecision lockOut) implements Admission {
    }
}

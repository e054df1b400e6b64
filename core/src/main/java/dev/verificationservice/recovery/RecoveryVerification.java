package dev.verificationservice.recovery;

/** Every outcome of presenting a recovery code; {@code remaining} is how many unused codes the user has now. */
public sealed interface RecoveryVerification {

    boolean valid();

    int remaining();

    /** The code was one of the user's unused codes and is now used. */
    record Valid(int remaining) implements RecoveryVerification {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(Reason reason, int remaining) implements RecoveryVerification {
        @Override
        public boolean valid() {
            return false;
        }
    }

    enum Reason {
        /** Not a code of the user's current set: a wrong guess, counted. */
        INVALID_CODE,
        /** One of the user's codes, used before: no wrong guess, not counted. */
        USED,
        /** Too many wrong codes in the window; nothing was tested. */
        TOO_MANY_ATTEMPTS
    }
}

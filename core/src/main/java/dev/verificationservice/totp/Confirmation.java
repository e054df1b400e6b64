package dev.verificationservice.totp;

import dev.verificationservice.recovery.IssuedRecoveryCodes;
import java.util.Optional;

/** Every outcome of confirming a pending factor with a code from the app. */
public sealed interface Confirmation {

    boolean confirmed();

    /**
     * The factor verifies from now on; the user's recovery codes are new (shown this once; the old set is void), or
     * empty when a simultaneous issue replaced the set first (its answer holds the user's codes).
     */
    record Confirmed(String factorId, Optional<IssuedRecoveryCodes> recoveryCodes) implements Confirmation {
        @Override
        public boolean confirmed() {
            return true;
        }
    }

    record NotConfirmed(Reason reason) implements Confirmation {
        @Override
        public boolean confirmed() {
            return false;
        }
    }

    enum Reason {
        /** The code is not the app's code for now: a wrong guess, counted in {@code VERIFY_TOTP}. */
        INVALID_CODE,
        /** No pending factor of the user has this id (never enrolled, removed, or its 15 minutes are over). */
        NOT_FOUND,
        /** The factor is confirmed already. */
        ALREADY_CONFIRMED,
        /** Too many wrong codes in the window; nothing was tested. */
        TOO_MANY_ATTEMPTS
    }
}

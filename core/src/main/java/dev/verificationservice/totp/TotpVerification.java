package dev.verificationservice.totp;

/** Every outcome of presenting a code from an authenticator app. */
public sealed interface TotpVerification {

    boolean valid();

    /** The code is accepted; its time step will not be accepted again for this factor. */
    record Valid(String factorId) implements TotpVerification {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(Reason reason) implements TotpVerification {
        @Override
        public boolean valid() {
            return false;
        }
    }

    enum Reason {
        /** The code is no confirmed factor's code for the current step or one either side: a wrong guess, counted. */
        INVALID_CODE,
        /** A right code of a step already accepted (or an earlier one): no wrong guess, not counted. */
        REPLAYED,
        /** The user has no confirmed factor. */
        NO_FACTOR,
        /** Too many wrong codes in the window; nothing was tested. */
        TOO_MANY_ATTEMPTS
    }
}

package dev.verificationservice.client;

/** The outcome of {@code POST /v1/users/{userId}/totp/verify}. */
public sealed interface TotpVerifyResult permits TotpVerifyResult.Valid, TotpVerifyResult.Invalid {

    boolean valid();

    /** The code is accepted: the factor whose code it was. Its time step will not be accepted again. */
    record Valid(String factorId) implements TotpVerifyResult {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(Reason reason) implements TotpVerifyResult {
        @Override
        public boolean valid() {
            return false;
        }
    }

    /** Why a code was not valid. */
    enum Reason {
        /** No confirmed factor's code for now: a wrong guess, counted. */
        INVALID_CODE,
        /** A right code of a time step already accepted: not a wrong guess. */
        REPLAYED,
        /** The user has no confirmed factor. */
        NO_FACTOR,
        /** Too many wrong codes in the window; nothing was tested. */
        TOO_MANY_ATTEMPTS,
        /** A reason this version of the client does not know (a newer service). */
        UNKNOWN
    }
}

package dev.verificationservice.client;

import java.util.List;

/** The outcome of {@code POST /v1/users/{userId}/totp/{factorId}/confirm}. */
public sealed interface TotpConfirmResult permits TotpConfirmResult.Confirmed, TotpConfirmResult.NotConfirmed {

    boolean confirmed();

    /**
     * The factor verifies from now on; the user's new recovery codes, shown this once. Empty when a simultaneous
     * request for the user's new set came first: that answer holds the user's codes.
     */
    record Confirmed(List<String> recoveryCodes) implements TotpConfirmResult {
        public Confirmed {
            recoveryCodes = List.copyOf(recoveryCodes);
        }

        @Override
        public boolean confirmed() {
            return true;
        }

        /** Never shows the codes. */
        @Override
        public String toString() {
            return "Confirmed[" + recoveryCodes.size() + " recovery code(s), redacted]";
        }
    }

    record NotConfirmed(Reason reason) implements TotpConfirmResult {
        @Override
        public boolean confirmed() {
            return false;
        }
    }

    /** Why a factor was not confirmed. */
    enum Reason {
        /** Not the app's code for now: a wrong guess, counted. */
        INVALID_CODE,
        /** No pending factor of the user has this id (never enrolled, removed, or lapsed). */
        NOT_FOUND,
        ALREADY_CONFIRMED,
        /** Too many wrong codes in the window; nothing was tested. */
        TOO_MANY_ATTEMPTS,
        /** A reason this version of the client does not know (a newer service). */
        UNKNOWN
    }
}

package dev.verificationservice.client;

import java.util.Optional;

/**
 * The outcome of {@code POST /v1/users/{userId}/recovery-codes/verify}.
 *
 * @param reason why it was not valid; empty when valid
 * @param remaining how many unused recovery codes the user has now
 */
public record RecoveryCodeResult(boolean valid, Optional<Reason> reason, int remaining) {

    /** Why a recovery code was not valid. */
    public enum Reason {
        /** Not a code of the user's current set: a wrong guess, counted. */
        INVALID_CODE,
        /** One of the user's codes, used before: not a wrong guess. */
        USED,
        /** Too many wrong codes in the window; nothing was tested. */
        TOO_MANY_ATTEMPTS,
        /** A reason this version of the client does not know (a newer service). */
        UNKNOWN
    }
}

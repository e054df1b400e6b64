package dev.verificationservice.codes;

/** Why a code is not valid. */
public enum FailureReason {
    /** No such code for this user and type (or it was invalidated). */
    NOT_FOUND,
    /** The code exists but its lifetime has ended, whether or not the store has deleted it yet. */
    EXPIRED,
    /** The code was already consumed. */
    USED,
    /** Too many failed verifications in the current window; the user's codes of this type are invalidated. */
    TOO_MANY_ATTEMPTS
}

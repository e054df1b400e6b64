package dev.verificationservice.client;

/** Why a code was not valid. */
public enum InvalidCodeReason {
    /** No such code (never sent, invalidated by a newer one, or for another user or type). */
    NOT_FOUND,
    /** The code's 15 minutes have passed. */
    EXPIRED,
    /** The code was already used. */
    USED,
    /** Too many failed attempts for this user and code type; wait for the window to end. */
    TOO_MANY_ATTEMPTS,
    /** A reason this version of the client does not know (a newer service). */
    UNKNOWN;

    static InvalidCodeReason of(String name) {
        for (InvalidCodeReason reason : values()) {
            if (reason.name().equals(name)) {
                return reason;
            }
        }
        return UNKNOWN;
    }
}

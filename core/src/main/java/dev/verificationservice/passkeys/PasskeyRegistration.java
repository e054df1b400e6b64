package dev.verificationservice.passkeys;

/** The outcome of a registration: the passkey stored, or why not (nothing was stored). */
public sealed interface PasskeyRegistration {

    enum Reason {
        /** No open registration challenge of this user: unknown, used, expired, or another user's. */
        CHALLENGE_NOT_OPEN,
        /** The response failed a check: origin, RP ID, user presence or verification, algorithm, attestation. */
        REJECTED,
        /** The user holds the most passkeys allowed. */
        CAP_REACHED,
        /** A passkey with this credential id is registered already. */
        CREDENTIAL_EXISTS
    }

    record Registered(PasskeySummary passkey) implements PasskeyRegistration {
    }

    /** @param check which check failed, for the caller's problem document (never a secret) */
    record NotRegistered(Reason reason, String check) implements PasskeyRegistration {
    }
}

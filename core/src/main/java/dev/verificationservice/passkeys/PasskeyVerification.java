package dev.verificationservice.passkeys;

/** The outcome of a sign-in assertion. */
public sealed interface PasskeyVerification {

    enum Reason {
        /** No passkey has the assertion's credential id (or its user handle is another user's). */
        UNKNOWN_CREDENTIAL,
        /** No open sign-in challenge: unknown, used (a replay), expired, or bound to another user. */
        CHALLENGE_NOT_OPEN,
        /** The signature, origin, RP ID or a flag failed: a wrong guess at the factor. */
        REJECTED,
        /** The sign count did not move forwards: the credential may be cloned; refused and audited. */
        POSSIBLY_CLONED,
        /** The user's passkey sign-ins are locked for now by the counted-attempt rule. */
        TOO_MANY_ATTEMPTS
    }

    record Valid(String userId, String credentialId) implements PasskeyVerification {
    }

    record Invalid(Reason reason, String check) implements PasskeyVerification {
    }
}

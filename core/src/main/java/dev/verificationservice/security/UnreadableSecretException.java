package dev.verificationservice.security;

/**
 * A sealed secret could not be opened. Its message says why (an unknown key id, a failed authentication) and never
 * holds the secret or a key.
 */
public final class UnreadableSecretException extends IllegalStateException {

    public UnreadableSecretException(String reason) {
        super("The sealed secret cannot be opened: " + reason);
    }
}

package dev.verificationservice.passkeys;

import java.time.Instant;
import java.util.List;

/**
 * The {@code PublicKeyCredentialRequestOptions} for {@code navigator.credentials.get()}: for a username-less sign-in
 * (and conditional UI) {@code allowCredentials} is empty; for a named user it lists the user's passkeys, and a user
 * with none gets the same shape (a stable decoy id), so the answer does not tell which usernames exist.
 */
public record SignInOptions(String challenge, String rpId, List<CredentialDescriptor> allowCredentials,
                            String userVerification, long timeoutMillis, Instant expiresAt) {
}

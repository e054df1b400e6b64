package dev.verificationservice.passkeys;

import java.time.Instant;
import java.util.List;

/**
 * The {@code PublicKeyCredentialCreationOptions} a browser passes to {@code navigator.credentials.create()}, as plain
 * values (binary ones base64url): attestation {@code none}, the algorithms ES256, EdDSA and RS256, a discoverable
 * credential preferred, and the user's existing passkeys excluded.
 */
public record RegistrationOptions(String challenge, String rpId, String rpName, String userHandle, String userName,
                                  String displayName, List<Long> algorithms, List<CredentialDescriptor> excludeCredentials,
                                  String residentKey, String userVerification, String attestation, long timeoutMillis,
                                  Instant expiresAt) {
}

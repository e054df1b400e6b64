package dev.verificationservice.passkeys;

import java.util.Set;

/** A {@code PublicKeyCredentialDescriptor}: a credential id (base64url) and the transports the browser may try. */
public record CredentialDescriptor(String id, Set<String> transports) {
}

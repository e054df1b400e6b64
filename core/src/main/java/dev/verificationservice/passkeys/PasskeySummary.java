package dev.verificationservice.passkeys;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/** A passkey as the service shows it: what a user needs to recognise and manage it, no key material. */
public record PasskeySummary(String credentialId, String label, Set<String> transports, boolean backupEligible,
                             boolean backedUp, String aaguid, Instant createdAt, Optional<Instant> lastUsedAt) {
}

package dev.verificationservice.client;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** One passkey of a user, as the service shows it: no key material. */
public record Passkey(String credentialId, String label, List<String> transports, boolean backupEligible,
                      boolean backedUp, String aaguid, Instant createdAt, Optional<Instant> lastUsedAt) {
}

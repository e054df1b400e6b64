package dev.verificationservice.client;

import java.time.Instant;
import java.util.Optional;

/** One of a user's authenticator factors, as listed: never its secret. */
public record TotpFactor(String factorId, String label, boolean confirmed, Instant createdAt,
                         Optional<Instant> lastUsedAt) {
}

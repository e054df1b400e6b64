package dev.verificationservice.totp;

import java.time.Instant;
import java.util.Optional;

/** What a list of a user's factors shows: never the secret. */
public record FactorSummary(String factorId, String label, boolean confirmed, Instant createdAt,
                            Optional<Instant> lastUsedAt) {
}

package dev.verificationservice.totp;

import dev.verificationservice.security.SealedSecret;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One authenticator-app factor as stored: the item {@code USER#<userId>} / {@code TOTP#<factorId>}, in the user's item
 * collection, so that one Query reads all of a user's factors. The shared secret is stored only sealed (AES-256-GCM,
 * the user and factor ids as associated data), never in clear and never digested: codes are computed from it.
 *
 * @param confirmed        false while pending: a pending factor verifies nothing
 * @param expiresAt        a pending factor's end (stored as {@code ttl}); empty once confirmed
 * @param lastAcceptedStep the newest time step a code was accepted for ({@link #NO_STEP} before any): a code of this
 *                         step or an earlier one is a replay. Always present, so a store's condition can compare it
 * @param lastUsedAt       when a code was last accepted
 */
public record TotpFactor(
        String userId,
        String factorId,
        String label,
        String issuer,
        TotpAlgorithm algorithm,
        int digits,
        Duration period,
        SealedSecret secret,
        boolean confirmed,
        Instant createdAt,
        Optional<Instant> expiresAt,
        long lastAcceptedStep,
        Optional<Instant> lastUsedAt) {

    /** The lastAcceptedStep of a factor no code was accepted for yet: every step is later. */
    public static final long NO_STEP = -1;

    /** A pending factor past its expiry: as good as gone, whether or not the store has deleted it yet. */
    public boolean isExpiredAt(Instant now) {
        return !confirmed && expiresAt.map(end -> now.getEpochSecond() >= end.getEpochSecond()).orElse(false);
    }

    /** The associated data its secret is sealed with: a ciphertext copied to another user's or factor's item fails. */
    public static String associatedData(String userId, String factorId) {
        return "TOTP|" + userId + "|" + factorId;
    }
}

package dev.verificationservice.totp;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.security.SealedSecret;
import java.time.Instant;
import java.util.Optional;

/**
 * Everything one accepted code writes, in one atomic step: the factor's {@code lastAcceptedStep} set to {@code step}
 * (stamped with {@code attemptId} and {@code now} as lastUsedAt), the audit entry, and the attempt's place in the
 * failure count given back; with {@code resealed}, the secret re-encrypted under the current key replaces the stored
 * one in the same write (rotation on use). The condition is the replay rule: see
 * {@link TotpRepository#acceptStep} and {@link TotpRepository#confirmFactor}.
 *
 * @param attemptId random id of this attempt, stored as {@code acceptedBy}: a retry of this very write (its answer
 *                  lost) finds it and is told Accepted again, instead of a replay
 */
public record StepAcceptance(String userId, String factorId, long step, Instant now, String attemptId,
                             AuditEntry entry, Optional<Place> placeToGiveBack, Optional<SealedSecret> resealed) {
}

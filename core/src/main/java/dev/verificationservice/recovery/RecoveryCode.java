package dev.verificationservice.recovery;

import java.time.Instant;
import java.util.Optional;

/**
 * One recovery code as stored: the item {@code USER#<userId>} / {@code RECOVERY#<digest>}, in the user's item
 * collection beside the TOTP factors. The code itself is never stored: {@code digest} is its HMAC under the
 * server's key ring.
 *
 * @param setId    the set it was issued in; only the user's newest set (by {@code issuedAt}, then {@code setId})
 *                 verifies, so of two sets stored by a version that did not condition a replacement on the set it
 *                 replaced, the older is void all the same
 * @param used     whether it was used; a used code stays until its set is replaced, so that presenting it again
 *                 answers USED, not a wrong guess
 */
public record RecoveryCode(String userId, String digest, String setId, Instant issuedAt, boolean used,
                           Optional<Instant> usedAt) {
}

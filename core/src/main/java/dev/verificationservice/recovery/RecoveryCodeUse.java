package dev.verificationservice.recovery;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import java.time.Instant;
import java.util.Optional;

/**
 * One use of a recovery code, written in one atomic step on the condition that the item exists, belongs to
 * {@code setId} and is not used: it becomes used (stamped with {@code attemptId} and {@code now}), its
 * {@code RECOVERY_CODE_USED} entry is written and the attempt's place in the failure count is given back. Of any
 * number of concurrent uses of one code exactly one succeeds; a retry of the one that did (same {@code attemptId},
 * its answer lost) succeeds again and writes nothing more.
 */
public record RecoveryCodeUse(String userId, String digest, String setId, Instant now, String attemptId,
                              AuditEntry used, Optional<Place> placeToGiveBack) {
}

package dev.verificationservice.passkeys;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import java.time.Instant;
import java.util.Optional;

/**
 * One accepted assertion, written as one attempt write: the challenge consumed (it must be open at {@code now}), the
 * passkey's sign count moved from {@code expectedSignCount} (the count the verification tested against) to the
 * presented one, the {@code PASSKEY_VERIFIED} entry, and the attempt's window place given back.
 */
public record PasskeyUse(String challenge, String userId, String credentialId, long expectedSignCount,
                         long newSignCount, boolean backedUp, Instant now, String attemptId, AuditEntry entry,
                         Optional<Place> placeToGiveBack) {
}

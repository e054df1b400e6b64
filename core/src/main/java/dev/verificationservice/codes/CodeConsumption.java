package dev.verificationservice.codes;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import java.time.Instant;
import java.util.Optional;

/**
 * Everything one use of a code writes, in one atomic step: the code marked used (and stamped with the
 * attempt's id), its {@code CODE_VERIFIED} audit entry, and, for a NUMERIC code, the attempt's place in the
 * failure count given back. Afterwards all of it exists or none of it does, so a used code always has its
 * audit entry and a failure count never counts a success.
 *
 * @param digest        the code's key
 * @param userId        the user the code must belong to (part of the write's condition)
 * @param codeType      the type the code must have (part of the write's condition)
 * @param format        the code's format: a NUMERIC code is the user's current code, a LINK code is found by its key
 * @param now           the code's ttl must be after this (part of the write's condition)
 * @param attemptId     random id of this attempt, stored as {@code consumedBy}: a retry of this very write finds
 *                      it and is told the code was consumed, instead of {@code USED}
 * @param verified      the {@code CODE_VERIFIED} entry written with it
 * @param placeToGiveBack the NUMERIC attempt's place in the failure count, given back in the same step
 * @param contextDigest the HMAC of the context the verification names; part of the condition: the code's
 *                      stored {@code contextDigest} must equal it, or both be absent
 */
public record CodeConsumption(String digest, String userId, CodeType codeType, CodeFormat format, Instant now,
                              String attemptId, AuditEntry verified, Optional<Place> placeToGiveBack,
                              Optional<String> contextDigest) {

    public CodeConsumption(String digest, String userId, CodeType codeType, CodeFormat format, Instant now,
                           String attemptId, AuditEntry verified, Optional<Place> placeToGiveBack) {
        this(digest, userId, codeType, format, now, attemptId, verified, placeToGiveBack, Optional.empty());
    }
}

package dev.verificationservice.idempotency;

import java.time.Instant;
import java.util.Optional;

/** Storage SPI for Idempotency-Keys. Each write is a conditional write, correct when it runs twice. */
public interface IdempotencyRepository {

    /**
     * Claims the key for {@code pending} in one conditional write: when no item has it, or the item is a claim
     * still pending from before {@code staleBefore} (its request died), or this very claim still pending (a retry).
     * Once answered, this claim arriving again gets the record with its answer and writes nothing. Empty when
     * claimed; otherwise the record that holds the key.
     */
    Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore);

    /** Stores the answer, on the condition that {@code claimedBy} still holds the key. */
    void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer);

    /** Gives the key up (the request failed in a way that must not be replayed), if {@code claimedBy} holds it. */
    void releaseIdempotencyKey(String keyDigest, String claimedBy);

    /** The record of a key (a strongly consistent read), if it exists and its ttl is after {@code now}. */
    Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now);
}

package dev.verificationservice.spring.store;

import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.idempotency.IdempotencyRepository;
import java.time.Instant;
import java.util.Optional;

/** The store's Idempotency-Keys, each call timed. */
record MeteredIdempotency(IdempotencyRepository keys, StoreTimers.Port timer) implements IdempotencyRepository {

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        return timer.time("claimIdempotencyKey", () -> keys.claimIdempotencyKey(pending, staleBefore));
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        timer.run("completeIdempotencyKey", () -> keys.completeIdempotencyKey(keyDigest, claimedBy, answer));
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        timer.run("releaseIdempotencyKey", () -> keys.releaseIdempotencyKey(keyDigest, claimedBy));
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        return timer.time("findIdempotencyKey", () -> keys.findIdempotencyKey(keyDigest, now));
    }
}

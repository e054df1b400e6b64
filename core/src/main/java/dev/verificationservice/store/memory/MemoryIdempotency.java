package dev.verificationservice.store.memory;

import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.idempotency.IdempotencyRepository;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Idempotency-Keys in memory, by key digest.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Claim: the key is free when no record holds it (or only one expired at the claim's time), when this very
 *   claim holds it still pending (a retry), or when a claim still pending was made before {@code staleBefore} (its request died);
 *   a free key takes the claim, unless it is this claim already. Otherwise the record holding it is answered.</li>
 *   <li>Complete: the answer is stored only while this claim holds the key. Release: the key is removed only while
 *   this claim holds it and has no answer.</li>
 *   <li>Find: the record, if its ttl (a whole second) is after {@code now}.</li>
 * </ol>
 */
final class MemoryIdempotency implements IdempotencyRepository {

    private final Object lock;
    private final Map<String, IdempotencyRecord> records = new HashMap<>();

    MemoryIdempotency(Object lock) {
        this.lock = lock;
    }

    private static boolean isLiveAt(IdempotencyRecord record, Instant now) {
        return now.getEpochSecond() < record.expiresAt().getEpochSecond();
    }

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        synchronized (lock) {
            Optional<IdempotencyRecord> current = Optional.ofNullable(records.get(pending.keyDigest()))
                    .filter(record -> isLiveAt(record, pending.claimedAt()));
            boolean mine = current.filter(record -> record.claimedBy().equals(pending.claimedBy())).isPresent();
            // This very claim again is free only while it is pending: once answered, the answer is what it gets.
            boolean free = current.isEmpty() || (!current.get().done()
                    && (mine || current.get().claimedAt().isBefore(staleBefore)));
            if (!free) {
                return current;
            }
            if (!mine) {
                records.put(pending.keyDigest(), pending);
            }
            return Optional.empty();
        }
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        synchronized (lock) {
            records.computeIfPresent(keyDigest, (key, record) -> !record.claimedBy().equals(claimedBy) ? record
                    : new IdempotencyRecord(record.keyDigest(), record.requestDigest(), record.claimedBy(),
                            record.claimedAt(), Optional.of(answer), record.expiresAt()));
        }
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        synchronized (lock) {
            records.computeIfPresent(keyDigest, (key, record) ->
                    record.claimedBy().equals(claimedBy) && !record.done() ? null : record);
        }
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        synchronized (lock) {
            return Optional.ofNullable(records.get(keyDigest)).filter(record -> isLiveAt(record, now));
        }
    }

    /** Every stored record, for the raw view of the tests. */
    List<IdempotencyRecord> stored() {
        synchronized (lock) {
            return List.copyOf(records.values());
        }
    }
}

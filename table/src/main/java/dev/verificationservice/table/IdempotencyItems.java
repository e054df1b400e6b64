package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.idempotency.IdempotencyRecord;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Idempotency keys: one item per client's key, {@code IDEMPOTENCY#<keyDigest>} / {@code IDEMPOTENCY#<keyDigest>}. */
public final class IdempotencyItems {

    private IdempotencyItems() {
    }

    public static Map<String, Object> idempotencyItem(IdempotencyRecord record) {
        Map<String, Object> item = keyed(TableKeys.idempotencyKey(record.keyDigest()));
        item.put(KEY_DIGEST, record.keyDigest());
        item.put(REQUEST_DIGEST, record.requestDigest());
        item.put(CLAIMED_BY, record.claimedBy());
        item.put(CLAIMED_AT, Timestamps.format(record.claimedAt()));
        record.answer().ifPresent(answer -> {
            item.put(ANSWER_STATUS, (long) answer.status());
            item.put(ANSWER, answer.sealedBody());
        });
        item.put(TTL, epochSeconds(record.expiresAt()));
        return item;
    }

    public static IdempotencyRecord idempotency(Map<String, Object> item) {
        Optional<IdempotencyRecord.StoredAnswer> answer = item.containsKey(ANSWER)
                ? Optional.of(new IdempotencyRecord.StoredAnswer((int) number(item, ANSWER_STATUS), string(item, ANSWER)))
                : Optional.empty();
        return new IdempotencyRecord(string(item, KEY_DIGEST), string(item, REQUEST_DIGEST), string(item, CLAIMED_BY),
                Timestamps.parse(string(item, CLAIMED_AT)), answer, Instant.ofEpochSecond(number(item, TTL)));
    }

    /** The claim time as the table compares it (fixed-width text sorts as time). */
    public static String claimedAtText(Instant instant) {
        return Timestamps.format(instant);
    }
}

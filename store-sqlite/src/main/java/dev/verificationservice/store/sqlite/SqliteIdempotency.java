package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.TTL;

import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.idempotency.IdempotencyRepository;
import dev.verificationservice.table.IdempotencyItems;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * Idempotency-Keys in the SQLite table.
 *
 * <p><b>Algorithm.</b> Claim, complete and release are each one transaction that reads the key's item and
 * writes only on the condition the DynamoDB store puts into its request: a claim takes a key that is free
 * (absent or expired), its own (a retry) or left pending since before {@code staleBefore}, and otherwise
 * answers the record holding it; complete stores the answer only while this claim holds the key; release
 * deletes the key only while this claim holds it and has no answer. Find is a read of the key filtering
 * {@code ttl > :now} itself.
 */
final class SqliteIdempotency implements IdempotencyRepository {

    private final SqliteTable table;

    SqliteIdempotency(SqliteTable table) {
        this.table = table;
    }

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(pending.keyDigest());
        return table.inTransaction("claim an Idempotency-Key", connection -> {
            Optional<IdempotencyRecord> current = table.selectItem(connection, key)
                    .filter(item -> TableItems.number(item, TTL) > pending.claimedAt().getEpochSecond())
                    .map(IdempotencyItems::idempotency);
            // This very claim again is free only while it is pending: once answered, the answer is what it gets.
            boolean free = current.isEmpty() || (!current.get().done()
                    && (current.get().claimedBy().equals(pending.claimedBy())
                    || current.get().claimedAt().isBefore(staleBefore)));
            if (!free) {
                return current;
            }
            if (current.isEmpty() || !current.get().claimedBy().equals(pending.claimedBy())) {
                table.putItem(connection, IdempotencyItems.idempotencyItem(pending));
            }
            return Optional.<IdempotencyRecord>empty();
        });
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(keyDigest);
        table.inTransaction("store an idempotent answer", connection -> {
            Optional<IdempotencyRecord> current = table.selectItem(connection, key).map(IdempotencyItems::idempotency)
                    .filter(record -> record.claimedBy().equals(claimedBy));
            if (current.isPresent()) {
                IdempotencyRecord record = current.get();
                table.putItem(connection, IdempotencyItems.idempotencyItem(new IdempotencyRecord(record.keyDigest(),
                        record.requestDigest(), record.claimedBy(), record.claimedAt(), Optional.of(answer),
                        record.expiresAt())));
            }
            return null;
        });
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(keyDigest);
        table.inTransaction("release an Idempotency-Key", connection -> {
            if (table.selectItem(connection, key).map(IdempotencyItems::idempotency)
                    .filter(record -> record.claimedBy().equals(claimedBy) && !record.done()).isPresent()) {
                table.deleteItem(connection, key);
            }
            return null;
        });
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(keyDigest);
        try (Connection connection = table.readConnection();
             PreparedStatement select = connection.prepareStatement(SqliteTable.SELECT_ACTIVE_ITEM)) {
            select.setString(1, key.pk());
            select.setString(2, key.sk());
            select.setLong(3, now.getEpochSecond());
            return table.allItems(select).stream().findFirst().map(IdempotencyItems::idempotency);
        } catch (SQLException e) {
            throw SqliteTable.failure("read an Idempotency-Key", e);
        }
    }
}

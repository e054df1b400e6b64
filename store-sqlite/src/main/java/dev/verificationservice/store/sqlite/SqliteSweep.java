package dev.verificationservice.store.sqlite;

import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background sweep of the SQLite store: at a fixed delay, deletes rows whose ttl passed more than a grace
 * period ago. Housekeeping only, exactly like DynamoDB TTL: every read and conditional write decides validity from
 * {@code ttl} itself, so nothing depends on when (or whether) it runs.
 *
 * <p><b>Algorithm</b> (no index on {@code ttl}: one would cost every write a page in a random place of it, see
 * {@link SqliteSchema#DROP_TTL_INDEX}):
 * <ol>
 *   <li>Walk the table in the order its rows are stored, from the start, {@value #CHUNK} rows at a time, on a
 *   connection of the read pool: {@code rowid > :last} ({@link SqliteSchema.Layout#WRITE_ORDER}; a row written
 *   again moves to the end and is met again, harmlessly) or {@code (pk, sk) > (:last)}
 *   ({@link SqliteSchema.Layout#KEY_ORDER}), each a range of the table itself. The writer is not held while rows
 *   are read.</li>
 *   <li>The rows of a chunk whose ttl is before the cut-off are deleted on the writer in one transaction, each by
 *   its key and only if its ttl is still before the cut-off (a row written again since keeps its new life).</li>
 *   <li>The walk ends at the end of the table: every row expired at the start of the run is gone.</li>
 * </ol>
 * A run reads the whole table once, on the pool, every ten minutes by default; the writer only deletes.
 */
final class SqliteSweep implements AutoCloseable {

    // The store's logger, under the name operators already configure.
    private static final Logger LOG = LoggerFactory.getLogger(SqliteVerificationStore.class);
    static final int CHUNK = 1000;
    private static final String FIRST_CHUNK_IN_WRITE_ORDER =
            "SELECT rowid, pk, sk, ttl FROM items ORDER BY rowid LIMIT " + CHUNK;
    static final String NEXT_CHUNK_IN_WRITE_ORDER =
            "SELECT rowid, pk, sk, ttl FROM items WHERE rowid > ? ORDER BY rowid LIMIT " + CHUNK;
    private static final String FIRST_CHUNK_IN_KEY_ORDER = "SELECT 0, pk, sk, ttl FROM items ORDER BY pk, sk LIMIT " + CHUNK;
    static final String NEXT_CHUNK_IN_KEY_ORDER =
            "SELECT 0, pk, sk, ttl FROM items WHERE (pk, sk) > (?, ?) ORDER BY pk, sk LIMIT " + CHUNK;
    private static final String DELETE_EXPIRED = "DELETE FROM items WHERE pk = ? AND sk = ? AND ttl < ?";

    private final SqliteTable table;
    private final Clock clock;
    private final Duration sweepGrace;
    private final ScheduledExecutorService sweeper;

    SqliteSweep(SqliteTable table, Clock clock, Duration sweepInterval, Duration sweepGrace) {
        this.table = table;
        this.clock = clock;
        this.sweepGrace = sweepGrace;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "verification-sqlite-sweep");
            thread.setDaemon(true);
            return thread;
        });
        long intervalMillis = sweepInterval.toMillis();
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** Deletes rows whose ttl passed more than the grace period before {@code now}; returns how many. */
    int sweepExpired(Instant now) {
        long cutoff = now.minus(sweepGrace).getEpochSecond();
        int total = 0;
        Optional<Position> last = Optional.empty();
        while (true) {
            Chunk chunk = read(last, cutoff);
            if (!chunk.expired().isEmpty()) {
                total += table.inTransaction("sweep expired rows", connection -> {
                    int deleted = 0;
                    try (PreparedStatement delete = connection.prepareStatement(DELETE_EXPIRED)) {
                        for (TableKeys.PrimaryKey key : chunk.expired()) {
                            delete.setString(1, key.pk());
                            delete.setString(2, key.sk());
                            delete.setLong(3, cutoff);
                            deleted += delete.executeUpdate();
                        }
                    }
                    return deleted;
                });
            }
            if (chunk.last().isEmpty()) {
                return total;
            }
            last = chunk.last();
        }
    }

    /** Where a row is in the walk: its rowid (in write order) and its key. */
    private record Position(long rowid, TableKeys.PrimaryKey key) {
    }

    /** One chunk of the walk: the keys in it whose ttl is before the cut-off, and its last row (none at the end). */
    private record Chunk(List<TableKeys.PrimaryKey> expired, Optional<Position> last) {
    }

    private Chunk read(Optional<Position> after, long cutoff) {
        boolean writeOrder = table.layout() == SqliteSchema.Layout.WRITE_ORDER;
        String sql = writeOrder
                ? (after.isPresent() ? NEXT_CHUNK_IN_WRITE_ORDER : FIRST_CHUNK_IN_WRITE_ORDER)
                : (after.isPresent() ? NEXT_CHUNK_IN_KEY_ORDER : FIRST_CHUNK_IN_KEY_ORDER);
        try (Connection connection = table.readConnection();
             PreparedStatement select = connection.prepareStatement(sql)) {
            if (after.isPresent() && writeOrder) {
                select.setLong(1, after.get().rowid());
            } else if (after.isPresent()) {
                select.setString(1, after.get().key().pk());
                select.setString(2, after.get().key().sk());
            }
            List<TableKeys.PrimaryKey> expired = new ArrayList<>();
            Position last = null;
            int rows = 0;
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    last = new Position(result.getLong(1),
                            new TableKeys.PrimaryKey(result.getString(2), result.getString(3)));
                    long ttl = result.getLong(4);
                    if (!result.wasNull() && ttl < cutoff) {
                        expired.add(last.key());
                    }
                    rows++;
                }
            }
            return new Chunk(expired, rows < CHUNK ? Optional.empty() : Optional.of(last));
        } catch (SQLException e) {
            throw SqliteTable.failure("read rows to sweep", e);
        }
    }

    private void sweepQuietly() {
        try {
            int deleted = sweepExpired(clock.instant());
            if (deleted > 0) {
                LOG.debug("Swept {} long-expired rows", deleted);
            }
        } catch (RuntimeException e) {
            LOG.warn("Housekeeping sweep failed (it will run again): {}", e.getMessage());
        }
    }

    /** Stops the sweep; one running now is interrupted. */
    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}

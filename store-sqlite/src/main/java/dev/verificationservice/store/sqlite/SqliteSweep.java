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
 *   <li>Walk the table in key order from the start, {@value #CHUNK} rows at a time, on a connection of the read
 *   pool ({@code (pk, sk) > (:last)}, a range of the primary key): the writer is not held while rows are read.</li>
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
    private static final String FIRST_CHUNK = "SELECT pk, sk, ttl FROM items ORDER BY pk, sk LIMIT " + CHUNK;
    static final String NEXT_CHUNK =
            "SELECT pk, sk, ttl FROM items WHERE (pk, sk) > (?, ?) ORDER BY pk, sk LIMIT " + CHUNK;
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
        Optional<TableKeys.PrimaryKey> last = Optional.empty();
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

    /** One chunk of the walk: the keys in it whose ttl is before the cut-off, and its last key (none at the end). */
    private record Chunk(List<TableKeys.PrimaryKey> expired, Optional<TableKeys.PrimaryKey> last) {
    }

    private Chunk read(Optional<TableKeys.PrimaryKey> after, long cutoff) {
        try (Connection connection = table.readConnection();
             PreparedStatement select = connection.prepareStatement(after.isPresent() ? NEXT_CHUNK : FIRST_CHUNK)) {
            if (after.isPresent()) {
                select.setString(1, after.get().pk());
                select.setString(2, after.get().sk());
            }
            List<TableKeys.PrimaryKey> expired = new ArrayList<>();
            TableKeys.PrimaryKey last = null;
            int rows = 0;
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    last = new TableKeys.PrimaryKey(result.getString(1), result.getString(2));
                    long ttl = result.getLong(3);
                    if (!result.wasNull() && ttl < cutoff) {
                        expired.add(last);
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

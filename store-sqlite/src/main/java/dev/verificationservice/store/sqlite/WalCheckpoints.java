package dev.verificationservice.store.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds the write-ahead log back into the database file off the writer's thread. By default SQLite does it inside
 * a COMMIT, on the connection that committed, once the log passes 1,000 pages: on the embedded store that is the
 * one writer, so every request queued behind that batch waited for the copy and its syncs of the log and of the
 * database file (a profile of one-time-token logins showed the writer's COMMITs, which do not sync, taking nearly
 * as long as its syncs). The writer's connection turns that off ({@link #WRITER_PRAGMA}); this runs a
 * {@code PASSIVE} checkpoint every {@link #INTERVAL} on a connection of the read pool instead, which copies what
 * no reader still needs without taking a lock the writer or a reader waits for. Durability does not change: a
 * commit is on disk in the log before it is acknowledged; the checkpoint only moves it, and SQLite reads the log
 * until it has. When the store closes, SQLite folds the rest in as the last connection closes.
 */
final class WalCheckpoints implements AutoCloseable {

    /** Set on the writer's connection: no checkpoint inside a COMMIT. */
    static final String WRITER_PRAGMA = "PRAGMA wal_autocheckpoint=0";
    static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final String CHECKPOINT = "PRAGMA wal_checkpoint(PASSIVE)";

    // The store's logger, under the name operators already configure.
    private static final Logger LOG = LoggerFactory.getLogger(SqliteVerificationStore.class);

    private final DataSource readPool;
    private final ScheduledExecutorService checkpointer;

    /** What one checkpoint did: the log's frames, and how many of them are now in the database file. */
    record Outcome(boolean busy, int logFrames, int copiedFrames) {
    }

    WalCheckpoints(DataSource readPool) {
        this.readPool = readPool;
        this.checkpointer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "verification-sqlite-checkpoint");
            thread.setDaemon(true);
            return thread;
        });
        checkpointer.scheduleWithFixedDelay(this::checkpointQuietly, INTERVAL.toMillis(), INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** One passive checkpoint now. */
    Outcome checkpoint() throws SQLException {
        try (Connection connection = readPool.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(CHECKPOINT)) {
            result.next();
            return new Outcome(result.getInt(1) != 0, result.getInt(2), result.getInt(3));
        }
    }

    private void checkpointQuietly() {
        try {
            checkpoint();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("Could not fold the embedded store's write-ahead log into its file (it will try again): {}",
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        checkpointer.shutdownNow();
        try {
            checkpointer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.verificationservice.store.sqlite;

import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background sweep of the SQLite store: at a fixed delay, deletes rows whose ttl passed more than a grace
 * period ago, one batch per transaction. Housekeeping only, exactly like DynamoDB TTL: every read and
 * conditional write decides validity from {@code ttl} itself, so nothing depends on when (or whether) it runs.
 */
final class SqliteSweep implements AutoCloseable {

    // The store's logger, under the name operators already configure.
    private static final Logger LOG = LoggerFactory.getLogger(SqliteVerificationStore.class);
    private static final int SWEEP_BATCH = 500;
    private static final String SWEEP = "DELETE FROM items WHERE (pk, sk) IN"
            + " (SELECT pk, sk FROM items WHERE ttl IS NOT NULL AND ttl < ? LIMIT " + SWEEP_BATCH + ")";

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
        int deleted;
        do {
            // One batch per transaction, so that the sweep never holds the writer for long.
            deleted = table.inTransaction("sweep expired rows", connection -> {
                try (PreparedStatement sweep = connection.prepareStatement(SWEEP)) {
                    sweep.setLong(1, cutoff);
                    return sweep.executeUpdate();
                }
            });
            total += deleted;
        } while (deleted == SWEEP_BATCH);
        return total;
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

package dev.verificationservice.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.store.StoreException;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group-commit writer on a real SQLite file ({@code synchronous=FULL}). A batch is made deterministic by
 * holding the writer in a first transaction until the transactions under test are all waiting: they are then
 * taken together, as one batch with one COMMIT.
 */
class GroupCommitWriterTest {

    @TempDir
    Path directory;

    private Path file;
    private GroupCommitWriter writer;
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void open() throws SQLException {
        file = directory.resolve("writer.db");
        try (Connection setup = DriverManager.getConnection(url()); Statement statement = setup.createStatement()) {
            statement.execute("PRAGMA journal_mode=WAL");
            statement.execute("CREATE TABLE rows (name TEXT PRIMARY KEY)");
            statement.execute("CREATE TABLE parents (id TEXT PRIMARY KEY)");
            statement.execute("CREATE TABLE children (id TEXT PRIMARY KEY, parent TEXT REFERENCES parents(id) "
                    + "DEFERRABLE INITIALLY DEFERRED)");
        }
        writer = open(Duration.ofSeconds(5));
    }

    private GroupCommitWriter open(Duration wait) throws SQLException {
        Connection connection = DriverManager.getConnection(url());
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA synchronous=FULL");
            // A deferred foreign key is checked at COMMIT: the way to make a real COMMIT fail.
            statement.execute("PRAGMA foreign_keys=ON");
        }
        return new GroupCommitWriter(connection, wait, "test-writer", GroupCommitWriter.Durability.ALREADY_DURABLE);
    }

    @AfterEach
    void close() {
        release.countDown();
        writer.close();
        callers.shutdownNow();
    }

    private String url() {
        return "jdbc:sqlite:" + file.toAbsolutePath();
    }

    private static int insert(Connection connection, String name) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO rows (name) VALUES (?)")) {
            insert.setString(1, name);
            return insert.executeUpdate();
        }
    }

    private static int count(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT count(*) FROM rows WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet result = select.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }

    /** What another connection sees: committed rows only. */
    private List<String> committedRows() throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection reader = DriverManager.getConnection(url()); Statement statement = reader.createStatement();
             ResultSet result = statement.executeQuery("SELECT name FROM rows ORDER BY name")) {
            while (result.next()) {
                names.add(result.getString(1));
            }
        }
        return names;
    }

    /** Holds the writer in a transaction of its own until {@link #release} opens. */
    private Future<Object> holdTheWriter() throws InterruptedException {
        Future<Object> held = callers.submit(() -> writer.run("hold", connection -> {
            holding.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        return held;
    }

    private <T> Future<T> submit(String what, GroupCommitWriter.Body<T> body) {
        return callers.submit(() -> writer.run(what, body));
    }

    private void awaitWaiting(int transactions) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (writer.waiting() < transactions) {
            assertThat(System.nanoTime()).as("%d transactions waiting", transactions).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void transactionsWaitingTogetherShareOneCommitAndAreAllDurable() throws Exception {
        Future<Object> held = holdTheWriter();
        List<Future<Integer>> writes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String name = "row-" + (100 + i);
            writes.add(submit("insert " + name, connection -> insert(connection, name)));
        }
        awaitWaiting(20);
        release.countDown();

        held.get(10, TimeUnit.SECONDS);
        for (Future<Integer> write : writes) {
            assertThat(write.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        }
        assertThat(committedRows()).hasSize(20);
        assertThat(writer.transactions()).isEqualTo(21);
        assertThat(writer.commits()).as("the held transaction, then the 20 in one batch").isEqualTo(2);
    }

    @Test
    void eachTransactionSeesTheWritesOfThoseBeforeItInItsBatch() throws Exception {
        holdTheWriter();
        Future<Integer> first = submit("insert a", connection -> insert(connection, "a"));
        awaitWaiting(1);
        Future<Integer> second = submit("insert a again", connection -> {
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO rows (name) VALUES ('a') "
                    + "ON CONFLICT DO NOTHING")) {
                return insert.executeUpdate();
            }
        });
        awaitWaiting(2);
        release.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(second.get(10, TimeUnit.SECONDS)).as("the condition saw the first insert of its batch").isZero();
        assertThat(writer.commits()).isEqualTo(2);
    }

    @Test
    void aFailingTransactionLeavesNothingAndTheOthersOfItsBatchCommit() throws Exception {
        holdTheWriter();
        Future<Integer> before = submit("insert a", connection -> insert(connection, "a"));
        awaitWaiting(1);
        Future<Integer> failing = submit("insert b, then refuse", connection -> {
            insert(connection, "b");
            throw new StoreException("refused after writing b");
        });
        awaitWaiting(2);
        Future<Integer> after = submit("insert c", connection -> insert(connection, "c"));
        awaitWaiting(3);
        release.countDown();

        assertThat(before.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class)
                .hasMessageContaining("refused after writing b");
        assertThat(committedRows()).containsExactly("a", "c");
        assertThat(writer.commits()).isEqualTo(2);
    }

    @Test
    void noOutcomeIsGivenBeforeTheCommitAndAFailedCommitFailsTheWholeBatch() throws Exception {
        holdTheWriter();
        Future<Integer> innocent = submit("insert a", connection -> insert(connection, "a"));
        awaitWaiting(1);
        // A unit answered at its COMMIT is answered only once the COMMIT succeeded.
        Future<Integer> recorded = callers.submit(() -> writer.runUnit("insert b", () ->
                writer.run("insert b", connection -> insert(connection, "b")), true));
        awaitWaiting(2);
        // Fine until COMMIT, where the deferred foreign key fails the whole transaction.
        Future<Integer> orphan = submit("insert an orphan", connection -> {
            try (Statement statement = connection.createStatement()) {
                return statement.executeUpdate("INSERT INTO children (id, parent) VALUES ('c1', 'missing')");
            }
        });
        awaitWaiting(3);
        release.countDown();

        for (Future<Integer> write : List.of(innocent, recorded, orphan)) {
            assertThatThrownBy(() -> write.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class)
                    .hasMessageContaining("could not commit").hasMessageContaining("nothing was written");
        }
        assertThat(committedRows()).as("the innocent insert went with its batch").isEmpty();
        // The writer rolled back and goes on: the next transaction commits.
        int inserted = writer.run("insert z", connection -> insert(connection, "z"));
        assertThat(inserted).isEqualTo(1);
        assertThat(committedRows()).containsExactly("z");
    }

    @Test
    void aTransactionThatCannotStartWithinTheLockWaitIsNeverWritten() throws Exception {
        writer.close();
        writer = open(Duration.ofMillis(300));
        // (The holder's own caller gives up too, after two lock waits: its outcome is not what is tested here.)
        holdTheWriter();

        assertThatThrownBy(() -> writer.run("insert late", connection -> insert(connection, "late")))
                .isInstanceOf(StoreException.class).hasMessageContaining("busy for longer than the lock wait")
                .hasMessageContaining("nothing was written");
        release.countDown();

        // Whatever was taken after the hold has run once this one has.
        int late = writer.run("count late", connection -> count(connection, "late"));
        assertThat(late).isZero();
        assertThat(committedRows()).isEmpty();
    }

    /** The writer itself waits for another process's lock in BEGIN: a caller that gives up then is never written. */
    @Test
    void aTransactionWithdrawnWhileTheWriterWaitsForAnotherProcesssLockIsNeverWritten() throws Exception {
        writer.close();
        Connection connection = DriverManager.getConnection(url());
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA busy_timeout=3000");
        }
        writer = new GroupCommitWriter(connection, Duration.ofMillis(300), "test-writer",
                GroupCommitWriter.Durability.ALREADY_DURABLE);
        try (Connection other = DriverManager.getConnection(url()); Statement lock = other.createStatement()) {
            lock.execute("BEGIN IMMEDIATE");

            assertThatThrownBy(() -> writer.run("insert late", writing -> insert(writing, "late")))
                    .isInstanceOf(StoreException.class).hasMessageContaining("nothing was written");

            lock.execute("COMMIT");
        }
        int late = writer.run("count late", reading -> count(reading, "late"));
        assertThat(late).isZero();
        assertThat(committedRows()).isEmpty();
    }

    @Test
    void aTransactionCallingTheWriterAgainFailsAtOnceInsteadOfWaitingForItself() {
        assertThatThrownBy(() -> writer.run("outer", connection -> writer.run("inner", inner -> 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("wait for itself");
    }

    @Test
    void manyConcurrentWritersLoseNothing() throws Exception {
        int threads = 16;
        int each = 25;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < each; i++) {
                    String name = "t" + thread + "-" + i;
                    writer.run("insert " + name, connection -> insert(connection, name));
                }
            }, callers));
        }
        start.countDown();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(committedRows()).hasSize(threads * each).doesNotHaveDuplicates();
        assertThat(writer.transactions()).isEqualTo(threads * each);
    }

    /**
     * The log's sync runs beside the writer when other transactions wait: while it runs, the next batch is
     * written, and no caller hears of its write before a sync that began after its COMMIT has ended. The first
     * batch is held in its body until the second waits behind it, the second's body until the first sync began, and
     * that sync until the second batch is committed, so the order is not left to timing.
     */
    @Test
    void noOutcomeIsHandedBackBeforeASyncThatBeganAfterItsCommitAndTheNextBatchIsWrittenMeanwhile() throws Exception {
        writer.close();
        CountDownLatch firstSyncBegan = new CountDownLatch(1);
        CountDownLatch releaseFirstSync = new CountDownLatch(1);
        AtomicLong syncsBegun = new AtomicLong();
        List<Long> commitsSeenBySyncs = Collections.synchronizedList(new ArrayList<>());
        List<String> syncingThreads = Collections.synchronizedList(new ArrayList<>());
        writer = new GroupCommitWriter(openConnection(), Duration.ofSeconds(5), "test-writer", () -> {
            commitsSeenBySyncs.add(writer.commits());
            syncingThreads.add(Thread.currentThread().getName());
            if (syncsBegun.incrementAndGet() == 1) {
                firstSyncBegan.countDown();
                try {
                    releaseFirstSync.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });

        Future<Object> first = holdTheWriter();
        // The second batch's body waits for the first sync to begin: on a busy machine the writer could otherwise
        // commit it before the syncer has woken, and one sync would rightly cover both.
        Future<Integer> second = submit("insert second", connection -> {
            try {
                assertThat(firstSyncBegan.await(10, TimeUnit.SECONDS)).as("the first sync began").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return insert(connection, "second");
        });
        awaitWaiting(1);
        release.countDown();
        assertThat(firstSyncBegan.await(10, TimeUnit.SECONDS)).isTrue();
        // The first batch is committed and its sync is held: the second batch is written meanwhile ...
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (writer.commits() < 2) {
            assertThat(System.nanoTime()).as("the second batch is committed while the first sync runs")
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
        // ... and neither caller has an answer yet.
        assertThat(first.isDone()).isFalse();
        assertThat(second.isDone()).isFalse();
        assertThat(committedRows()).containsExactly("second");

        releaseFirstSync.countDown();
        first.get(10, TimeUnit.SECONDS);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        // The second batch, committed after the first sync began, waited for a sync of its own.
        assertThat(writer.syncs()).isEqualTo(2);
        assertThat(commitsSeenBySyncs).containsExactly(1L, 2L);
        assertThat(syncingThreads).allMatch(name -> name.equals("test-writer-sync"));

        // A lone write, with nothing waiting behind it, is synced by the writer itself: no hand-over to wait for.
        writer.run("insert lone", connection -> insert(connection, "lone"));
        assertThat(syncingThreads).last().isEqualTo("test-writer");
        assertThat(writer.syncs()).isEqualTo(3);
    }

    @Test
    void aMarkedTransactionsListenerRunsOnceItIsDurableBeforeItsCallerIsAnswered() throws Exception {
        writer.close();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        writer = new GroupCommitWriter(openConnection(), Duration.ofSeconds(5), "test-writer",
                () -> order.add("sync"));
        writer.afterMarkedDurable(() -> order.add("listener"));

        writer.run("insert marked", connection -> {
            writer.mark();
            return insert(connection, "marked");
        });
        assertThat(order).containsExactly("sync", "listener");

        assertThatThrownBy(() -> writer.run("insert marked, then fail", connection -> {
            writer.mark();
            insert(connection, "undone");
            throw new SQLException("refused");
        })).isInstanceOf(StoreException.class);
        writer.run("insert unmarked", connection -> insert(connection, "unmarked"));
        writer.mark();

        assertThat(order).as("a failed body and an unmarked one call nothing; a mark outside a body is no mark")
                .containsExactly("sync", "listener", "sync", "sync");
        assertThat(committedRows()).containsExactly("marked", "unmarked");
    }

    /**
     * A unit answered at its COMMIT returns while the sync that makes it durable is held, its row already seen by
     * another connection; a transaction of the same batch waits for the sync, and so does the unit's mark.
     */
    @Test
    void aUnitAnsweredAtCommitReturnsBeforeItsSyncWhileItsBatchAndItsMarkWaitForIt() throws Exception {
        writer.close();
        CountDownLatch syncBegan = new CountDownLatch(1);
        CountDownLatch releaseSync = new CountDownLatch(1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        writer = new GroupCommitWriter(openConnection(), Duration.ofSeconds(5), "test-writer", () -> {
            syncBegan.countDown();
            try {
                assertThat(releaseSync.await(10, TimeUnit.SECONDS)).as("the sync was released").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            order.add("synced");
        });
        writer.afterMarkedDurable(() -> order.add("listener"));

        // Both wait behind a held transaction, so that they are written in one batch.
        Future<Object> held = holdTheWriter();
        Future<Integer> durable = submit("insert durable", connection -> insert(connection, "durable"));
        Future<Integer> recorded = callers.submit(() -> writer.runUnit("insert recorded", () ->
                writer.run("insert recorded", connection -> {
                    writer.mark();
                    return insert(connection, "recorded");
                }), true));
        awaitWaiting(2);
        release.countDown();

        assertThat(recorded.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(syncBegan.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).as("answered before the sync ended, and before the mark's listener").isEmpty();
        assertThat(committedRows()).containsExactly("durable", "recorded");
        assertThat(durable.isDone()).as("the other transaction of the batch waits for the sync").isFalse();
        assertThat(held.isDone()).isFalse();

        releaseSync.countDown();
        assertThat(durable.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        held.get(10, TimeUnit.SECONDS);
        // One sync for both batches, or one each, as the syncer woke: the listener runs after the last.
        assertThat(order).startsWith("synced").endsWith("synced", "listener");
    }

    @Test
    void whenTheLogCannotBeSyncedItsCallersAreToldTheWriteMayOrMayNotHaveLanded() throws Exception {
        writer.close();
        writer = new GroupCommitWriter(openConnection(), Duration.ofSeconds(5), "test-writer", () -> {
            throw new IOException("Input/output error");
        });

        assertThatThrownBy(() -> writer.run("insert unsure", connection -> insert(connection, "unsure")))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("may or may not").hasMessageContaining("Input/output error")
                .hasMessageContaining("a retry is safe");
    }

    private Connection openConnection() throws SQLException {
        Connection connection = DriverManager.getConnection(url());
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA synchronous=NORMAL");
        }
        return connection;
    }
}

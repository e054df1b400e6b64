package dev.verificationservice.store.sqlite;

import dev.verificationservice.store.StoreException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store's one writer, with group commit: every write transaction of the store runs here, on one
 * connection, and the transactions waiting at the same moment share one {@code COMMIT}, so one sync of the file
 * ({@code synchronous=FULL}) makes all of them durable. SQLite runs one writer at a time anyway; what this
 * changes is how many syncs a burst of writes costs: one per batch instead of one per write.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>A caller hands in its transaction body and waits, at most the lock wait, for its outcome.</li>
 *   <li>The writer thread takes every transaction waiting at that moment (at most {@link #MAX_BATCH}),
 *   {@code BEGIN IMMEDIATE}, and runs them one after another, each inside a {@code SAVEPOINT} of its own.
 *   Each body sees the writes of those before it, exactly as if they had committed one after another, so
 *   every condition keeps its meaning. A body that fails is rolled back to its savepoint: it leaves nothing,
 *   and the others keep their writes.</li>
 *   <li>{@code COMMIT}, then, when other transactions already wait, the batch goes to the syncer
 *   ({@link Durability}) and the writer takes the next batch at once (a lone batch the writer syncs itself:
 *   there is nothing to overlap, and a hand-over would only add a wake-up). The syncer forces the write-ahead
 *   log to disk and only then hands back the outcomes of every batch committed before the force began, a result
 *   or a body's own failure: an outcome may rest on what an earlier body (of its batch or of an earlier one)
 *   wrote, and must not be acted on before that is on disk. (A unit run answered at its COMMIT, {@link #runUnit},
 *   is answered right after the COMMIT instead; its mark still waits for the sync.) So the log's sync (a few
 *   milliseconds on a cloud disk) no longer holds the writer: the next batch runs meanwhile, and one sync makes
 *   every batch before it durable. If the {@code COMMIT} (or the {@code BEGIN})
 *   fails, nothing of the batch is written and every caller gets a {@link StoreException}; each may retry, as
 *   every write of the store is safe to repeat. If the sync fails, the batches it was to make durable may or may
 *   not survive a power loss: their callers are told so (a retry is safe).</li>
 *   <li>A caller whose lock wait passes before its body started takes it back: it never runs, and the caller
 *   is told nothing was written. (Waiting for another process's lock in {@code BEGIN IMMEDIATE} counts as
 *   not started.) Once its body has started, the caller waits for the batch's outcome, however long the
 *   COMMIT takes: it is never told "failed" about a write that then lands. Every statement of the batch is
 *   bounded by SQLite's busy timeout; only a disk that stops answering could hold it longer.</li>
 * </ol>
 * A body must not call the store again: it runs on the writer's thread, which would wait for itself (such a
 * call fails at once).
 *
 * <p><b>Units of work.</b> {@link #runUnit} hands in the steps of one whole operation instead of one body: they
 * run on the writer's thread as one transaction of a batch (one savepoint, one COMMIT shared with the batch).
 * While they run, each store call they make is a step: {@link #run} from the writer's own thread runs the body at
 * once in a nested savepoint of its own (a failing step leaves nothing of itself, and the unit decides what
 * follows), and reads use the writer's connection ({@link #unitConnection}), so they see what the unit and the
 * bodies before it in the batch wrote. A unit that throws leaves nothing. Its outcome is handed back after the
 * sync, like every body's, or after the COMMIT when it is run answered there.
 * No batch waits for company: a batch is whatever arrived while the previous one was being written and
 * synced, so a lone write is committed at once.
 */
final class GroupCommitWriter implements AutoCloseable {

    /** A transaction body: runs on the writer's connection, inside the batch's transaction. */
    @FunctionalInterface
    interface Body<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Makes every committed transaction durable: the embedded store's connection commits with
     * {@code synchronous=NORMAL} (no sync inside COMMIT) and this forces the write-ahead log to disk, off the
     * writer's thread. {@link #ALREADY_DURABLE} for a connection that syncs in COMMIT ({@code synchronous=FULL}).
     */
    @FunctionalInterface
    interface Durability {
        Durability ALREADY_DURABLE = () -> {
        };

        void force() throws IOException;
    }

    /** The most transactions one COMMIT acknowledges: bounds how long the first of a batch waits for the last. */
    static final int MAX_BATCH = 64;

    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitWriter.class);
    private static final int QUEUED = 0;
    private static final int STARTED = 1;
    private static final int WITHDRAWN = 2;

    private final Connection connection;
    private final Duration wait;
    private final BlockingQueue<Job<?>> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final Durability durability;
    private final Thread syncer;
    /** Committed transactions waiting for the sync that makes them durable; guarded by itself. */
    private final List<Job<?>> awaitingSync = new ArrayList<>();
    /** Set once the writer's thread has ended: the syncer ends when nothing else awaits it. */
    private boolean writerEnded;
    /** Whether a sync runs now (the syncer's, or the writer's own for a lone batch); guarded by awaitingSync. */
    private boolean forcing;
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong answeredAtCommit = new AtomicLong();
    private volatile boolean closed;
    /** Whether the writer's thread runs a unit of work now: read and written on that thread only. */
    private boolean unitRunning;
    /** The writer's connection as a unit's steps read through it: closing it does nothing. */
    private final Connection unitConnection;
    /** The transaction whose body runs now: read and written on the writer's thread only. */
    private Job<?> current;
    /** Runs once a batch holding a marked transaction is durable (see {@link #mark}). */
    private volatile Runnable afterMarked = () -> {
    };

    private static final class Job<T> {
        final String what;
        final Body<T> body;
        final AtomicInteger state = new AtomicInteger(QUEUED);
        final CompletableFuture<T> outcome = new CompletableFuture<>();
        T result;
        Throwable failure;
        /** Whether its body asked for {@link #afterMarked} once it is durable ({@link #mark}). */
        boolean marked;
        /** Whether its caller is answered at the COMMIT rather than after the sync ({@link #runUnit}). */
        final boolean answeredAtCommit;

        Job(String what, Body<T> body, boolean answeredAtCommit) {
            this.what = what;
            this.body = body;
            this.answeredAtCommit = answeredAtCommit;
        }

        void deliver() {
            if (failure != null) {
                outcome.completeExceptionally(failure);
            } else {
                outcome.complete(result);
            }
        }
    }

    /**
     * Takes over {@code connection} (closed with the writer); the caller has set its pragmas, and
     * {@code durability} makes what it commits durable.
     */
    GroupCommitWriter(Connection connection, Duration wait, String name, Durability durability) {
        this.connection = connection;
        this.wait = wait;
        this.durability = durability;
        this.unitConnection = unclosable(connection);
        this.thread = new Thread(this::writeBatches, name);
        this.syncer = new Thread(this::syncBatches, name + "-sync");
        // A batch cut off by the JVM's exit was never acknowledged: SQLite rolls it back on the next open (or,
        // committed but not synced, it is lost or kept by the disk, and either is an answer nobody was given).
        thread.setDaemon(true);
        syncer.setDaemon(true);
        syncer.start();
        thread.start();
    }

    /** Runs {@code body} as one transaction of a batch; returns its result once the batch is committed and durable. */
    <T> T run(String what, Body<T> body) {
        return run(what, body, false);
    }

    private <T> T run(String what, Body<T> body, boolean answeredAtCommit) {
        if (holdsCallingThread()) {
            return runStep(what, body);
        }
        if (Thread.currentThread() == thread) {
            throw new IllegalStateException("a transaction of the embedded store called the store again: it would "
                    + "wait for itself");
        }
        if (closed) {
            throw new StoreException("the embedded store is closed; it could not " + what);
        }
        Job<T> job = new Job<>(what, body, answeredAtCommit);
        queue.add(job);
        if (closed && job.state.compareAndSet(QUEUED, WITHDRAWN)) {
            // Closed while it was being added: the writer may already be gone.
            throw new StoreException("the embedded store is closed; it could not " + what);
        }
        try {
            return outcomeOf(job);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (job.state.compareAndSet(QUEUED, WITHDRAWN)) {
                throw new StoreException("the embedded store could not " + what + ": interrupted before it started; "
                        + "nothing was written", e);
            }
            throw new StoreException("the embedded store could not " + what + ": interrupted while its batch was being "
                    + "written; it may or may not be written (a retry is safe)", e);
        }
    }

    /**
     * Runs {@code steps} as one transaction of a batch, on the writer's thread (see the class comment); returns
     * their result once the batch is committed and durable, or, {@code answeredAtCommit}, once it is committed: in
     * the write-ahead log, kept across a crash of the process and seen by every read, but not yet synced (a power
     * cut before the sync may lose it). Only for a unit no answer rests on but its own, which must not be acted on
     * before what it rests on is durable; its mark ({@link #mark}) still waits for the sync. Called from within a
     * unit, the steps simply join it.
     */
    <T> T runUnit(String what, Supplier<T> steps, boolean answeredAtCommit) {
        if (holdsCallingThread()) {
            return steps.get();
        }
        return run(what, connection -> {
            unitRunning = true;
            try {
                return steps.get();
            } finally {
                unitRunning = false;
            }
        }, answeredAtCommit);
    }

    /**
     * Called by a body: once its transaction is durable, and before its caller is answered, the listener of
     * {@link #afterMarkedDurable} runs (on the writer's or the syncer's thread). A body that fails leaves no mark.
     */
    void mark() {
        if (Thread.currentThread() == thread && current != null) {
            current.marked = true;
        }
    }

    /** What runs after a batch with a marked transaction is durable; it must return at once. */
    void afterMarkedDurable(Runnable listener) {
        afterMarked = listener;
    }

    /** Whether the calling thread is the writer's, running a unit: its store calls are the unit's steps. */
    boolean holdsCallingThread() {
        return unitRunning && Thread.currentThread() == thread;
    }

    /** The connection a unit's steps read through (see {@link #holdsCallingThread}); closing it does nothing. */
    Connection unitConnection() {
        return unitConnection;
    }

    /** One step of a unit: the body in a nested savepoint, which its failure rolls back before it goes up. */
    private <T> T runStep(String what, Body<T> body) {
        try {
            execute("SAVEPOINT step");
            T result;
            try {
                result = body.run(connection);
            } catch (SQLException | RuntimeException e) {
                execute("ROLLBACK TO step");
                execute("RELEASE step");
                throw e;
            }
            execute("RELEASE step");
            return result;
        } catch (SQLException e) {
            throw SqliteTable.failure(what, e);
        }
    }

    private static Connection unclosable(Connection connection) {
        return (Connection) Proxy.newProxyInstance(GroupCommitWriter.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(connection, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private <T> T outcomeOf(Job<T> job) throws InterruptedException {
        try {
            try {
                return job.outcome.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (job.state.compareAndSet(QUEUED, WITHDRAWN)) {
                    throw new StoreException(StoreException.Kind.BUSY, "the embedded store could not " + job.what
                            + ": the writer was busy for longer than the lock wait (" + wait + "); nothing was written",
                            e);
                }
                // Started: its batch is being written and will end (committed or not); its outcome is the answer.
                return job.outcome.get();
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new StoreException("the embedded store could not " + job.what + ": " + cause.getMessage(), cause);
        }
    }

    /** How many COMMITs the writer has made, and how many transactions they held: the grouping, for tests. */
    long commits() {
        return commits.get();
    }

    long transactions() {
        return transactions.get();
    }

    /** How many transactions were answered at their COMMIT, before its sync ({@link #runUnit}), for tests. */
    long answeredAtCommit() {
        return answeredAtCommit.get();
    }

    /** What makes this writer's commits durable, for tests. */
    Durability durability() {
        return durability;
    }

    /** How many syncs made batches durable: fewer than the commits when batches came faster than syncs. */
    long syncs() {
        return syncs.get();
    }

    /** How many transactions wait to be taken into a batch, for tests. */
    int waiting() {
        return queue.size();
    }

    private void writeBatches() {
        try {
            writeBatchesUntilClosed();
        } finally {
            synchronized (awaitingSync) {
                writerEnded = true;
                awaitingSync.notifyAll();
            }
        }
    }

    private void writeBatchesUntilClosed() {
        List<Job<?>> batch = new ArrayList<>();
        while (true) {
            try {
                Job<?> first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                batch.clear();
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                batch.removeIf(job -> job.state.get() == WITHDRAWN);
                if (!batch.isEmpty()) {
                    write(batch);
                }
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (RuntimeException | Error e) {
                // Never leave callers waiting on a dead writer, nor a transaction open for the next batch.
                LOG.error("The embedded store's writer failed a batch: {}", e.toString());
                try {
                    rollBack();
                } catch (RuntimeException | Error ignored) {
                    // The next batch's BEGIN will say whether the connection is still usable.
                }
                for (Job<?> job : batch) {
                    job.outcome.completeExceptionally(new StoreException("the embedded store could not " + job.what
                            + ": its writer failed (" + e + "); nothing was written", e));
                }
            }
        }
    }

    private void write(List<Job<?>> batch) {
        try {
            execute("BEGIN IMMEDIATE");
        } catch (SQLException e) {
            failAll(batch.stream().filter(job -> job.state.compareAndSet(QUEUED, STARTED)).toList(),
                    "could not begin its transaction (" + e.getMessage() + ")", e);
            return;
        }
        List<Job<?>> started = new ArrayList<>();
        try {
            for (Job<?> job : batch) {
                // Until here a caller may still withdraw (its lock wait passed, e.g. during BEGIN IMMEDIATE).
                if (job.state.compareAndSet(QUEUED, STARTED)) {
                    started.add(job);
                    runInSavepoint(job);
                }
            }
            execute("COMMIT");
        } catch (SQLException e) {
            rollBack();
            failAll(started, "could not commit (" + e.getMessage() + ")", e);
            failAll(batch.stream().filter(job -> !started.contains(job) && job.state.compareAndSet(QUEUED, STARTED))
                    .toList(), "could not commit (" + e.getMessage() + ")", e);
            return;
        }
        commits.incrementAndGet();
        transactions.addAndGet(started.size());
        // Still handed to the sync below, for its mark; its second answer there changes nothing.
        started.stream().filter(job -> job.answeredAtCommit).forEach(job -> {
            answeredAtCommit.incrementAndGet();
            job.deliver();
        });
        boolean syncHere;
        synchronized (awaitingSync) {
            // Nothing waits to be written and no sync runs: there is nothing to overlap the sync with, and handing
            // it to the syncer would only add a thread's wake-up to every lone write. Otherwise the syncer takes it
            // and this thread writes the next batch meanwhile.
            syncHere = queue.isEmpty() && awaitingSync.isEmpty() && !forcing;
            if (syncHere) {
                forcing = true;
            } else {
                awaitingSync.addAll(started);
                awaitingSync.notifyAll();
            }
        }
        if (syncHere) {
            syncAndAnswer(started);
        }
    }

    /**
     * The syncer's loop: takes every committed transaction waiting, forces the log once for all of them, and only
     * then hands their outcomes back, in commit order. Ends once the writer has ended and nothing waits.
     */
    private void syncBatches() {
        List<Job<?>> committed = new ArrayList<>();
        while (true) {
            synchronized (awaitingSync) {
                while ((awaitingSync.isEmpty() && !writerEnded) || forcing) {
                    try {
                        awaitingSync.wait();
                    } catch (InterruptedException e) {
                        // Only close ends the syncer, and only once the writer has ended and nothing waits.
                    }
                }
                if (awaitingSync.isEmpty()) {
                    return;
                }
                committed.addAll(awaitingSync);
                awaitingSync.clear();
                forcing = true;
            }
            syncAndAnswer(committed);
            committed.clear();
        }
    }

    /**
     * Forces the log, then answers the committed transactions; one force at a time ({@link #forcing}, set by the
     * caller), so that the writer and the syncer never sync at once.
     */
    private void syncAndAnswer(List<Job<?>> committed) {
        try {
            durability.force();
            syncs.incrementAndGet();
            // Before the answers: a caller answered here knows the listener has run (one answered at its COMMIT does
            // not wait for it).
            if (committed.stream().anyMatch(job -> job.marked && job.failure == null)) {
                notifyMarked();
            }
            committed.forEach(Job::deliver);
        } catch (IOException | RuntimeException e) {
            LOG.error("The embedded store could not force its write-ahead log to disk: {}", e.toString());
            for (Job<?> job : committed) {
                job.outcome.completeExceptionally(new StoreException("the embedded store could not " + job.what
                        + ": it was committed but the disk did not confirm it (" + e.getMessage() + "); it may or "
                        + "may not survive a power loss (a retry is safe)", e));
            }
        } finally {
            synchronized (awaitingSync) {
                forcing = false;
                awaitingSync.notifyAll();
            }
        }
    }

    private void notifyMarked() {
        try {
            afterMarked.run();
        } catch (RuntimeException e) {
            LOG.warn("A listener of the embedded store's writes failed: {}", e.toString());
        }
    }

    /** Runs one body in a savepoint; its own failure is kept for it and undone. A failing savepoint fails the batch. */
    private <T> void runInSavepoint(Job<T> job) throws SQLException {
        execute("SAVEPOINT job");
        current = job;
        try {
            job.result = job.body.run(connection);
        } catch (SQLException | RuntimeException e) {
            job.failure = e instanceof SQLException sql
                    ? SqliteTable.failure(job.what, sql) : e;
            job.marked = false;
            execute("ROLLBACK TO job");
        } finally {
            current = null;
        }
        execute("RELEASE job");
    }

    private void failAll(List<Job<?>> batch, String reason, SQLException cause) {
        for (Job<?> job : batch) {
            job.outcome.completeExceptionally(new StoreException("the embedded store could not " + job.what + ": the "
                    + "batch it was written in " + reason + "; nothing was written", cause));
        }
    }

    private void rollBack() {
        try {
            execute("ROLLBACK");
        } catch (SQLException e) {
            if (e.getMessage() == null || !e.getMessage().contains("no transaction is active")) {
                LOG.warn("Could not roll back on the embedded store's writer: {}", e.getMessage());
            }
        }
    }

    private void execute(String sql) throws SQLException {
        // Prepared, not created: the store's connection keeps prepared statements (StatementCache), and a unit's
        // steps run these several times each.
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.execute();
        }
    }

    /** Stops taking writes, lets the writer finish what it holds, and closes its connection. */
    @Override
    public void close() {
        closed = true;
        try {
            thread.join(Math.max(1_000, 2 * wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            // The writer has ended (or is stuck on a disk that stopped answering): what it committed is synced and
            // answered before the connection closes.
            syncer.join(Math.max(1_000, 2 * wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Job<?> job = queue.poll(); job != null; job = queue.poll()) {
            if (job.state.compareAndSet(QUEUED, WITHDRAWN)) {
                job.outcome.completeExceptionally(new StoreException("the embedded store closed before it could "
                        + job.what + "; nothing was written"));
            }
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.warn("Could not close the embedded store's writer connection: {}", e.getMessage());
        }
        if (durability instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warn("Could not close the embedded store's write-ahead log: {}", e.getMessage());
            }
        }
    }
}

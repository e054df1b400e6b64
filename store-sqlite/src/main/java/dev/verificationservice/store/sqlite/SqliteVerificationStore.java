package dev.verificationservice.store.sqlite;

import dev.verificationservice.StorePorts;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The single table in one SQLite file: the store that runs with no configuration at all.
 *
 * <p><b>Algorithm.</b> One row per item (see {@link SqliteSchema}). Each access pattern is one SQL
 * statement, or one {@code BEGIN IMMEDIATE} transaction (which holds the database's single write lock from
 * its first statement), whose {@code WHERE} clause is the DynamoDB condition of the same pattern, so a
 * condition and the writes it guards are one atomic step. Each repository holds its statements and tells its
 * algorithm: {@link SqliteCodes} (insert, consume, keep the newest), {@link SqliteDevices} (register, use with
 * a sliding expiry and re-key, revoke all), {@link SqliteAudit}, {@link SqliteCounters} (rate-limit places and
 * cooldowns), {@link SqliteIdempotency}, {@link SqliteTotpFactors} (the TOTP replay rule),
 * {@link SqliteRecoveryCodes} and {@link SqliteWebhooks} (webhooks and the outbox); {@link SqliteTable} holds what
 * they share. Queries through GSI1 and
 * the audit range filter {@code ttl > :now} themselves.
 *
 * <p><b>Concurrency.</b> The database runs in WAL mode. Reads go through a small connection pool; every
 * write transaction goes through the store's one writer ({@link GroupCommitWriter}), which runs the
 * transactions waiting at the same moment one after another, each in a savepoint of its own, and commits them
 * together. SQLite runs one writer at a time, and every step above is atomic, so the concurrent guarantees
 * (one consume wins, exact rate limits) hold across threads and across processes sharing the file.
 *
 * <p><b>One transaction per operation.</b> The domain runs the steps of a send (up to its delivery), of a code,
 * TOTP or recovery-code verification and of a device verification as a unit of work ({@link #units()},
 * {@link SqliteUnitOfWork}): the steps run on the writer's thread as one transaction of a batch, each store call in
 * a savepoint of its own (independent calls one after another), and commit once. Delivery runs outside the unit,
 * so the writer never waits for a channel.
 *
 * <p><b>Durability and failure.</b> {@code synchronous=FULL}: an acknowledged write survives a power loss. A
 * write is acknowledged only once the batch it was committed in is synced; the batch shares that one sync
 * (group commit), which is what lets FULL keep up with concurrent traffic. The one exception is a unit the domain
 * runs as a record ({@link dev.verificationservice.store.UnitOfWork#runRecord}, a send's {@code CODE_SENT}):
 * answered once committed, synced by the sync that follows.
 * Lock waits are bounded ({@link #DEFAULT_LOCK_WAIT} by default for the lock, the same for a pooled connection); past them a
 * request fails with a {@link StoreException}. The database files are created owner-only.
 *
 * <p><b>Expiry.</b> A background sweep ({@link SqliteSweep}) deletes rows whose ttl passed long ago. It is
 * housekeeping only, exactly like DynamoDB TTL: every read and conditional write decides validity from
 * {@code ttl} itself.
 */
public final class SqliteVerificationStore implements VerificationStore {

    public static final String DATABASE_FILE = "verification.db";
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMinutes(10);
    /** How long past its ttl a row is kept before the sweep removes it. */
    public static final Duration DEFAULT_SWEEP_GRACE = Duration.ofHours(1);

    /**
     * How long a statement waits for another writer's lock, and how long a request waits for a pooled
     * connection: together they bound how long a request can hang on a busy or stuck database (at most about
     * twice this), after which it fails with a StoreException (503, retry).
     */
    public static final Duration DEFAULT_LOCK_WAIT = Duration.ofSeconds(5);

    private final SqliteTable table;
    private final SqliteCodes codes;
    private final SqliteDevices devices;
    private final SqliteAudit audit;
    private final SqliteCounters counters;
    private final SqliteIdempotency idempotency;
    private final SqliteTotpFactors totpFactors;
    private final SqliteRecoveryCodes recoveryCodes;
    private final SqliteWebhooks webhooks;
    private final SqlitePasskeys passkeys;
    private final SqliteSmsRanges smsRanges;
    private final StorePorts ports;
    private final SqliteSweep sweep;
    private final SqliteUnitOfWork units;

    private SqliteVerificationStore(SqliteTable table, Clock clock, Duration sweepInterval, Duration sweepGrace) {
        this.table = table;
        this.counters = new SqliteCounters(table);
        this.codes = new SqliteCodes(table, counters);
        this.devices = new SqliteDevices(table);
        this.audit = new SqliteAudit(table);
        this.webhooks = new SqliteWebhooks(table);
        table.subscriptions(new EventSubscriptions(webhooks::listEndpoints));
        this.idempotency = new SqliteIdempotency(table);
        this.totpFactors = new SqliteTotpFactors(table, counters);
        this.recoveryCodes = new SqliteRecoveryCodes(table, counters);
        this.passkeys = new SqlitePasskeys(table, counters);
        this.smsRanges = new SqliteSmsRanges(table);
        this.ports = new StorePorts(codes, devices, audit, counters, idempotency, totpFactors, recoveryCodes,
                webhooks, passkeys, smsRanges);
        this.sweep = new SqliteSweep(table, clock, sweepInterval, sweepGrace);
        this.units = new SqliteUnitOfWork(table.writer());
    }

    /** Opens (creating if needed) {@value #DATABASE_FILE} in {@code dataDirectory}, with the default sweep. */
    public static SqliteVerificationStore open(Path dataDirectory, Clock clock) {
        return open(dataDirectory, clock, DEFAULT_SWEEP_INTERVAL, DEFAULT_SWEEP_GRACE);
    }

    public static SqliteVerificationStore open(Path dataDirectory, Clock clock, Duration sweepInterval,
                                               Duration sweepGrace) {
        return open(dataDirectory, clock, sweepInterval, sweepGrace, DEFAULT_LOCK_WAIT);
    }

    /**
     * @param lockWait how long a statement waits for another writer's lock, and a request for a pooled
     *                 connection, before it fails with a {@link StoreException}
     */
    public static SqliteVerificationStore open(Path dataDirectory, Clock clock, Duration sweepInterval,
                                               Duration sweepGrace, Duration lockWait) {
        return new SqliteVerificationStore(SqliteTable.open(dataDirectory, lockWait), clock, sweepInterval, sweepGrace);
    }

    /** One transaction of the writer per operation: see {@link SqliteUnitOfWork}. */
    @Override
    public UnitOfWork units() {
        return units;
    }

    /** Each concept's own class, built once. */
    @Override
    public StorePorts ports() {
        return ports;
    }

    @Override
    public EventSubscriptions eventSubscriptions() {
        return table.subscriptions();
    }

    /**
     * Ready when a write could happen now: takes the write lock ({@code BEGIN IMMEDIATE}) and ends the empty
     * transaction at once. A database another process keeps locked, or a full or read-only disk, is not ready although it
     * can still be read.
     */
    @Override
    public void checkReady() {
        table.inTransaction("check readiness (take the write lock)", connection -> {
            // Holding the write lock is the proof; the empty transaction then commits nothing.
            return null;
        });
    }

    /**
     * Deletes rows whose ttl passed more than the grace period before {@code now}; returns how many.
     * Housekeeping only: nothing depends on it for correctness.
     */
    public int sweepExpired(Instant now) {
        return sweep.sweepExpired(now);
    }

    @Override
    public void close() {
        sweep.close();
        table.close();
    }

    /** The writer, for tests of the grouping. */
    GroupCommitWriter writer() {
        return table.writer();
    }

    /** The value of a PRAGMA on the store's own connections (settings are per connection). For tests. */
    String pragma(String name) {
        return table.pragma(name);
    }

    /** Writes an item as it is, replacing any item with its key. For test fixtures that need a raw item. */
    void putItem(Map<String, Object> item) {
        table.inTransaction("put an item", connection -> {
            table.putItem(connection, item);
            return null;
        });
    }
}

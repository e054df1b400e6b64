package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.CODE_TYPE;
import static dev.verificationservice.table.ItemAttributes.CONSUMED_BY;
import static dev.verificationservice.table.ItemAttributes.CONTEXT_DIGEST;
import static dev.verificationservice.table.ItemAttributes.COUNT;
import static dev.verificationservice.table.ItemAttributes.IS_USED;
import static dev.verificationservice.table.ItemAttributes.TTL;
import static dev.verificationservice.table.ItemAttributes.USER_ID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.devices.UseOutcome;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The single table in one SQLite file: the store that runs with no configuration at all.
 *
 * <p><b>Algorithm.</b> One row per item (see {@link SqliteSchema}). Each access pattern is one SQL
 * statement, or one {@code BEGIN IMMEDIATE} transaction (which holds the database's single write lock from
 * its first statement), whose {@code WHERE} clause is the DynamoDB condition of the same pattern, so a
 * condition and the writes it guards are one atomic step:
 * <ul>
 *   <li>insert a code: {@code INSERT ... ON CONFLICT DO NOTHING} ({@code attribute_not_exists(PK)}); one row
 *   means written; none means the key is taken, and the stored item's {@code issuedBy} says whether by this
 *   very request (stored, a retry) or by another code (the caller generates a new one);</li>
 *   <li>append an audit entry: the same, and a taken key holding this very entry counts as written;</li>
 *   <li>consume a code: in one transaction, {@code UPDATE ... SET isUsed = true, consumedBy = :attempt WHERE
 *   isUsed = false AND ttl > :now AND userId AND codeType match}, then the {@code CODE_VERIFIED}
 *   entry inserted and the attempt's failure-count place given back; if the entry's key were taken the whole
 *   transaction rolls back. No row updated: the item as it is says why (like {@code ALL_OLD}), and one whose
 *   {@code consumedBy} is this attempt is this attempt's own earlier success;</li>
 *   <li>use a device token: in one transaction, read the token and the user's revoke-all marker; refused when
 *   the token is gone, expired, past its maximum life or created at or before the marker; otherwise its expiry
 *   slides (and a re-key deletes it and inserts it under its new tokenId);</li>
 *   <li>revoke-all marker: in one transaction, written only if later than the one stored;</li>
 *   <li>take a rate-limit place: in one transaction, read the window's counter; the attempt's mark
 *   ({@code place_<attemptId>}) answers a retry; at the ceiling nothing is written; else {@code count + 1} and
 *   the mark are written. Give a place back: count down and remove the mark, only while the mark is there.
 *   Keep a place: remove the mark only (the count stays), only while it is there;</li>
 *   <li>claim a cooldown: in one transaction, read the cooldown item; held by another attempt and still
 *   running: refused with its end; otherwise written with this attempt's id and end. Release it: delete the
 *   item, only while this attempt's id is its {@code claimedBy};</li>
 *   <li>register a device: both inserts in one transaction, rolled back unless both wrote a row;</li>
 *   <li>Idempotency-Keys: claim, complete and release are each one transaction that reads the key's item and
 *   writes only on the condition the DynamoDB store puts into its request;</li>
 *   <li>queries through GSI1 and the audit range filter {@code ttl > :now} themselves.</li>
 * </ul>
 *
 * <p><b>Concurrency.</b> The database runs in WAL mode. Reads go through a small connection pool; every
 * write transaction goes through the store's one writer ({@link GroupCommitWriter}), which runs the
 * transactions waiting at the same moment one after another, each in a savepoint of its own, and commits them
 * together. SQLite runs one writer at a time, and every step above is atomic, so the concurrent guarantees
 * (one consume wins, exact rate limits) hold across threads and across processes sharing the file.
 *
 * <p><b>Durability and failure.</b> {@code synchronous=FULL}: an acknowledged write survives a power loss. A
 * write is acknowledged only once the batch it was committed in is synced; the batch shares that one sync
 * (group commit), which is what lets FULL keep up with concurrent traffic.
 * Lock waits are bounded ({@link #DEFAULT_LOCK_WAIT} by default for the lock, the same for a pooled connection); past them a
 * request fails with a {@link StoreException}. The database files are created owner-only.
 *
 * <p><b>Expiry.</b> A background sweep deletes rows whose ttl passed long ago. It is housekeeping only,
 * exactly like DynamoDB TTL: every read and conditional write decides validity from {@code ttl} itself.
 */
public final class SqliteVerificationStore implements VerificationStore {

    public static final String DATABASE_FILE = "verification.db";
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMinutes(10);
    /** How long past its ttl a row is kept before the sweep removes it. */
    public static final Duration DEFAULT_SWEEP_GRACE = Duration.ofHours(1);

    private static final Logger LOG = LoggerFactory.getLogger(SqliteVerificationStore.class);
    private static final int POOL_SIZE = 4;
    /**
     * How long a statement waits for another writer's lock, and how long a request waits for a pooled
     * connection: together they bound how long a request can hang on a busy or stuck database (at most about
     * twice this), after which it fails with a StoreException (503, retry).
     */
    public static final Duration DEFAULT_LOCK_WAIT = Duration.ofSeconds(5);
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    /** The database and the files SQLite keeps beside it. */
    private static final List<String> DATABASE_FILES = List.of("", "-wal", "-shm", "-journal");
    private static final int SWEEP_BATCH = 500;

    // Statements, each the SQL form of one DynamoDB request of the same access pattern. JDBC binds the ?
    // parameters by position; the binding code beside each use says which value goes where.
    private static final String SELECT_ITEM = "SELECT item FROM items WHERE pk = ? AND sk = ?";
    private static final String INSERT_IF_ABSENT =
            "INSERT INTO items (pk, sk, gsi1pk, gsi1sk, ttl, item) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pk, sk) DO NOTHING";
    private static final String PUT_ITEM =
            "INSERT OR REPLACE INTO items (pk, sk, gsi1pk, gsi1sk, ttl, item) VALUES (?, ?, ?, ?, ?, ?)";
    private static final String DELETE_ITEM = "DELETE FROM items WHERE pk = ? AND sk = ?";
    /** attribute_exists(PK) AND isUsed = false AND ttl > :now AND userId = :userId AND codeType = :codeType. */
    private static final String CONSUME_CODE = "UPDATE items SET item = json_set(item, '$." + IS_USED + "', json('true'),"
            + " '$." + CONSUMED_BY + "', ?)"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + IS_USED + "') = 0 AND ttl > ?"
            + " AND json_extract(item, '$." + USER_ID + "') = ? AND json_extract(item, '$." + CODE_TYPE + "') = ?"
            + " AND json_extract(item, '$." + CONTEXT_DIGEST + "') IS ?";
    private static final String DELETE_BY_GSI1_PREFIX =
            "DELETE FROM items WHERE gsi1pk = ? AND gsi1sk >= ? AND gsi1sk < ? RETURNING item";
    private static final String SELECT_BY_GSI1_PREFIX =
            "SELECT item FROM items WHERE gsi1pk = ? AND gsi1sk >= ? AND gsi1sk < ? ORDER BY gsi1sk";
    private static final String SELECT_ACTIVE_BY_GSI1_PREFIX =
            "SELECT item FROM items WHERE gsi1pk = ? AND gsi1sk >= ? AND gsi1sk < ? AND ttl > ? ORDER BY gsi1sk";
    private static final String SELECT_AUDIT_RANGE = "SELECT item FROM items WHERE pk = ? AND sk BETWEEN ? AND ?"
            + " AND (ttl IS NULL OR ttl > ?) ORDER BY sk DESC LIMIT ?";
    private static final String SELECT_AUDIT_RANGE_BEFORE = "SELECT item FROM items WHERE pk = ? AND sk BETWEEN ? AND ?"
            + " AND sk < ? AND (ttl IS NULL OR ttl > ?) ORDER BY sk DESC LIMIT ?";
    private static final String DELETE_PARTITION = "DELETE FROM items WHERE pk = ? RETURNING item";
    private static final String SELECT_ACTIVE_SK_RANGE =
            "SELECT item FROM items WHERE pk = ? AND sk BETWEEN ? AND ? AND ttl > ? ORDER BY sk";
    private static final String SELECT_ACTIVE_ITEM = "SELECT item FROM items WHERE pk = ? AND sk = ? AND ttl > ?";
    private static final String SWEEP = "DELETE FROM items WHERE (pk, sk) IN"
            + " (SELECT pk, sk FROM items WHERE ttl IS NOT NULL AND ttl < ? LIMIT " + SWEEP_BATCH + ")";

    private static final TypeReference<LinkedHashMap<String, Object>> ITEM_TYPE = new TypeReference<>() {
    };

    private final HikariDataSource dataSource;
    private final JsonMapper json = JsonMapper.builder().build();
    private final GroupCommitWriter writer;
    private final Clock clock;
    private final Duration sweepGrace;
    private final ScheduledExecutorService sweeper;

    private SqliteVerificationStore(Path databaseFile, Clock clock, Duration sweepInterval, Duration sweepGrace,
                                    Duration lockWait) {
        this.clock = clock;
        this.sweepGrace = sweepGrace;
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        // FULL: a commit is on disk before it is acknowledged. With NORMAL, a power loss can roll back the last
        // commits: a used code usable again, failure counts lowered, a handed-out device secret gone.
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout((int) lockWait.toMillis());
        // Transactions are begun as BEGIN IMMEDIATE (see inTransaction): they take the write lock when they begin,
        // so two read-then-write transactions never deadlock.
        SQLiteDataSource sqlite = new SQLiteDataSource(config);
        sqlite.setUrl("jdbc:sqlite:" + databaseFile.toAbsolutePath());
        HikariConfig pool = new HikariConfig();
        pool.setDataSource(sqlite);
        pool.setPoolName("verification-sqlite");
        pool.setMaximumPoolSize(POOL_SIZE);
        pool.setMinimumIdle(1);
        // Hikari's floor is 250 ms.
        pool.setConnectionTimeout(Math.max(250, lockWait.toMillis()));
        try {
            this.dataSource = new HikariDataSource(pool);
        } catch (RuntimeException e) {
            throw cannotOpen(databaseFile, e);
        }
        try {
            createSchema();
        } catch (StoreException e) {
            dataSource.close();
            throw cannotOpen(databaseFile, e);
        }
        try {
            // The one connection every write goes through (group commit); the pool serves the reads.
            this.writer = new GroupCommitWriter(sqlite.getConnection(), lockWait, "verification-sqlite-writer");
        } catch (SQLException e) {
            dataSource.close();
            throw cannotOpen(databaseFile, e);
        }
        restrictFilesToOwner(databaseFile);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "verification-sqlite-sweep");
            thread.setDaemon(true);
            return thread;
        });
        long intervalMillis = sweepInterval.toMillis();
        sweeper.scheduleWithFixedDelay(this::sweepQuietly, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
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
        try {
            if (!Files.isDirectory(dataDirectory)) {
                Files.createDirectories(dataDirectory);
                restrictToOwner(dataDirectory);
            }
        } catch (IOException e) {
            throw new StoreException("cannot create the data directory " + dataDirectory.toAbsolutePath()
                    + ": " + e.getMessage() + "; set VERIFICATION_DATA_DIR to a writable directory", e);
        }
        Path databaseFile = dataDirectory.resolve(DATABASE_FILE);
        createOwnerOnly(databaseFile);
        return new SqliteVerificationStore(databaseFile, clock, sweepInterval, sweepGrace, lockWait);
    }

    /**
     * Creates the database file owner-only before SQLite opens it, whatever the directory and the umask: SQLite
     * gives its WAL and shared-memory files the database file's permissions. The files hold user ids, IP
     * addresses and push tokens.
     */
    private static void createOwnerOnly(Path databaseFile) {
        if (Files.exists(databaseFile)) {
            return;
        }
        try {
            Files.createFile(databaseFile, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
        } catch (UnsupportedOperationException e) {
            LOG.warn("Could not create {} owner-only: the file system has no POSIX permissions", databaseFile);
        } catch (IOException e) {
            throw new StoreException("cannot create the embedded database " + databaseFile.toAbsolutePath() + ": "
                    + e.getMessage() + "; set VERIFICATION_DATA_DIR to a directory this user can write", e);
        }
    }

    /** Files that existed before (an older version, a copy) are made owner-only too. */
    private static void restrictFilesToOwner(Path databaseFile) {
        for (String suffix : DATABASE_FILES) {
            Path file = databaseFile.resolveSibling(databaseFile.getFileName() + suffix);
            try {
                if (Files.exists(file)) {
                    Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
                }
            } catch (UnsupportedOperationException | IOException e) {
                LOG.warn("Could not restrict {} to its owner: {}", file, e.getMessage());
            }
        }
    }

    private static StoreException cannotOpen(Path databaseFile, Exception e) {
        String reason = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : e.getMessage();
        return new StoreException("cannot open the embedded database " + databaseFile.toAbsolutePath() + ": " + reason
                + "; check that it is a database this service wrote and that this user may read and write it"
                + " (or point VERIFICATION_DATA_DIR at another directory)", e);
    }

    private static void restrictToOwner(Path directory) {
        try {
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException | IOException e) {
            LOG.warn("Could not restrict {} to its owner: {}", directory, e.getMessage());
        }
    }

    private void createSchema() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(SqliteSchema.CREATE_TABLE);
            statement.execute(SqliteSchema.CREATE_GSI1);
            statement.execute(SqliteSchema.CREATE_TTL_INDEX);
        } catch (SQLException e) {
            throw failure("create the schema", e);
        }
    }

    // Codes

    @Override
    public boolean insertCode(VerificationCode code, String issueId) {
        Map<String, Object> item = TableItems.codeItem(code, issueId);
        return inTransaction("write a code", connection -> {
            if (insertIfAbsent(connection, item) == 1) {
                return true;
            }
            // The key is taken: by this very insert (a retry) or by another code, which the caller replaces.
            return selectItem(connection, TableKeys.code(code.digest()))
                    .flatMap(TableItems::issuedBy).filter(issueId::equals).isPresent();
        });
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        TableKeys.PrimaryKey key = TableKeys.code(digest);
        try (Connection connection = dataSource.getConnection()) {
            return selectItem(connection, key).map(TableItems::code);
        } catch (SQLException e) {
            throw failure("read a code", e);
        }
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        TableKeys.PrimaryKey key = TableKeys.code(consumption.digest());
        Map<String, Object> auditItem = TableItems.auditItem(consumption.verified());
        return inTransaction("consume a code", connection -> {
            boolean updated;
            try (PreparedStatement update = connection.prepareStatement(CONSUME_CODE)) {
                update.setString(1, consumption.attemptId());
                update.setString(2, key.pk());
                update.setString(3, key.sk());
                update.setLong(4, consumption.now().getEpochSecond());
                update.setString(5, consumption.userId());
                update.setString(6, consumption.codeType().name());
                // IS compares NULL with NULL as equal: both without a context, or the same context's HMAC.
                update.setString(7, consumption.contextDigest().orElse(null));
                updated = update.executeUpdate() == 1;
            }
            if (!updated) {
                Optional<Map<String, Object>> current = selectItem(connection, key);
                if (current.flatMap(TableItems::consumedBy).filter(consumption.attemptId()::equals).isPresent()) {
                    // This attempt used the code up already, with its audit entry: a retry, not a second use.
                    return new ConsumeOutcome.Consumed();
                }
                return new ConsumeOutcome.Rejected(current.map(TableItems::code));
            }
            if (insertIfAbsent(connection, auditItem) != 1) {
                throw new StoreException("the CODE_VERIFIED audit key " + TableItems.string(auditItem, ItemAttributes.SK)
                        + " is taken; nothing was written, retry the verification");
            }
            if (consumption.placeToGiveBack().isPresent()) {
                givePlaceBack(connection, consumption.placeToGiveBack().get());
            }
            return new ConsumeOutcome.Consumed();
        });
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        if (format.isEmpty()) {
            return deleteByIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType)).stream()
                    .map(TableItems::code).toList();
        }
        return inTransaction("delete codes of one format", connection -> {
            List<VerificationCode> deleted = codesOfType(connection, userId, codeType).stream()
                    .filter(code -> code.format() == format.get()).toList();
            deleteCodes(connection, deleted);
            return deleted;
        });
    }

    /**
     * This file's index has no lag: in one transaction the stored codes of the user and type that the code
     * replaces ({@link VerificationCode#replacedBy}) are deleted, which is what the marker item of a store with a
     * lagging index achieves.
     */
    @Override
    public List<VerificationCode> makeCurrent(VerificationCode code) {
        return inTransaction("keep only the newest code", connection -> {
            List<VerificationCode> deleted = VerificationCode.replacedBy(code,
                    codesOfType(connection, code.userId(), code.codeType()));
            deleteCodes(connection, deleted);
            return deleted;
        });
    }

    private List<VerificationCode> codesOfType(Connection connection, String userId, CodeType codeType)
            throws SQLException {
        return selectByIndexPrefix(connection, TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType),
                Optional.empty()).stream().map(TableItems::code).toList();
    }

    private static void deleteCodes(Connection connection, List<VerificationCode> doomed) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_ITEM)) {
            for (VerificationCode code : doomed) {
                TableKeys.PrimaryKey key = TableKeys.code(code.digest());
                delete.setString(1, key.pk());
                delete.setString(2, key.sk());
                delete.executeUpdate();
            }
        }
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return selectByIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType), Optional.empty())
                .stream().map(TableItems::code).toList();
    }

    @Override
    public void deleteCode(String digest) {
        deleteItem(TableKeys.code(digest));
    }

    // Devices

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        Map<String, Object> tokenItem = TableItems.deviceItem(token);
        Map<String, Object> auditItem = TableItems.auditItem(deviceAdded);
        inTransaction("register a device", connection -> {
            if (insertIfAbsent(connection, tokenItem) != 1) {
                throw new StoreException("device registration refused: a token with key " + TableItems.string(tokenItem, ItemAttributes.PK)
                        + " / " + TableItems.string(tokenItem, ItemAttributes.SK) + " already exists; nothing was written");
            }
            if (insertIfAbsent(connection, auditItem) != 1) {
                throw new StoreException("device registration refused: the DEVICE_ADDED audit key "
                        + TableItems.string(auditItem, ItemAttributes.SK) + " is taken; nothing was written, retry the registration");
            }
            return null;
        });
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        try (Connection connection = dataSource.getConnection()) {
            return selectItem(connection, TableKeys.deviceToken(deviceId, tokenId)).map(TableItems::device);
        } catch (SQLException e) {
            throw failure("read a device token", e);
        }
    }

    @Override
    public UseOutcome useDevice(DeviceUse use) {
        DeviceToken token = use.token();
        TableKeys.PrimaryKey key = TableKeys.deviceToken(token.deviceId(), token.tokenId());
        return inTransaction("use a device token", connection -> {
            Optional<DeviceToken> current = selectItem(connection, key).map(TableItems::device);
            if (current.isEmpty() && use.rekeyTo().isPresent()) {
                // Moved already: a retry of this very re-key finds the token under its new id.
                Optional<DeviceToken> moved = selectItem(connection, TableKeys.deviceToken(token.deviceId(),
                        use.rekeyTo().get())).map(TableItems::device)
                        .filter(after -> after.createdAt().equals(token.createdAt()));
                return moved.<UseOutcome>map(UseOutcome.Used::new).orElseGet(UseOutcome.Refused::new);
            }
            if (current.isEmpty() || current.get().expiresAt().getEpochSecond() <= use.now().getEpochSecond()
                    || !current.get().createdAt().isAfter(use.notCreatedBefore())
                    || revokedAfterCreation(connection, current.get())) {
                return new UseOutcome.Refused();
            }
            DeviceToken after = new DeviceToken(token.deviceId(), use.rekeyTo().orElse(token.tokenId()), token.userId(),
                    current.get().deviceType(), current.get().deviceName(), current.get().pushToken(), use.now(),
                    current.get().ipAddress(), current.get().userAgent(), current.get().createdAt(), use.newExpiresAt());
            if (use.rekeyTo().isPresent()) {
                try (PreparedStatement delete = connection.prepareStatement(DELETE_ITEM)) {
                    delete.setString(1, key.pk());
                    delete.setString(2, key.sk());
                    delete.executeUpdate();
                }
                if (insertIfAbsent(connection, TableItems.deviceItem(after)) != 1) {
                    throw new StoreException("the device token could not move to its current key: the new key is taken");
                }
            } else {
                putItem(connection, TableItems.deviceItem(after));
            }
            return new UseOutcome.Used(after);
        });
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        try (Connection connection = dataSource.getConnection()) {
            return selectItem(connection, TableKeys.devicesRevoked(userId)).map(TableItems::revokedBefore);
        } catch (SQLException e) {
            throw failure("read the revoke-all marker", e);
        }
    }

    /** The user's revoke-all marker is at or after the token's creation: the token is revoked. */
    private boolean revokedAfterCreation(Connection connection, DeviceToken token) throws SQLException {
        return selectItem(connection, TableKeys.devicesRevoked(token.userId()))
                .map(marker -> TableItems.string(marker, ItemAttributes.REVOKED_BEFORE))
                .filter(revokedBefore -> revokedBefore.compareTo(TableItems.createdAtText(token)) >= 0)
                .isPresent();
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        Map<String, Object> marker = TableItems.revocationItem(userId, revokedBefore, expiresAt);
        inTransaction("mark a user's devices revoked", connection -> {
            Optional<String> current = selectItem(connection, TableKeys.devicesRevoked(userId))
                    .map(item -> TableItems.string(item, ItemAttributes.REVOKED_BEFORE));
            String next = TableItems.string(marker, ItemAttributes.REVOKED_BEFORE);
            if (current.isEmpty() || current.get().compareTo(next) < 0) {
                putItem(connection, marker);
            }
            return null;
        });
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return selectByIndexPrefix(TableKeys.user(userId), TableKeys.devicesPrefix(), Optional.of(now))
                .stream().map(TableItems::device).toList();
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        String prefix = deviceId.map(TableKeys::deviceOfUserPrefix).orElse(TableKeys.devicesPrefix());
        return deleteByIndexPrefix(TableKeys.user(userId), prefix).stream().map(TableItems::device).toList();
    }

    // Audit

    @Override
    public boolean appendAudit(AuditEntry entry) {
        Map<String, Object> item = TableItems.auditItem(entry);
        return inTransaction("append an audit entry", connection -> {
            if (insertIfAbsent(connection, item) == 1) {
                return true;
            }
            // Taken by this very entry (a retry) counts as written; by another entry, the caller picks a new id.
            return selectItem(connection, TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId()))
                    .filter(stored -> TableItems.isSameAuditEntry(stored, entry)).isPresent();
        });
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                      int limit, Instant now) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(
                     before.isPresent() ? SELECT_AUDIT_RANGE_BEFORE : SELECT_AUDIT_RANGE)) {
            int index = 1;
            select.setString(index++, TableKeys.user(userId));
            select.setString(index++, TableKeys.auditRangeStart(from));
            select.setString(index++, TableKeys.auditRangeEnd(to));
            if (before.isPresent()) {
                select.setString(index++, TableKeys.auditSortKey(before.get().timestamp(), before.get().entryId()));
            }
            select.setLong(index++, now.getEpochSecond());
            select.setInt(index, limit);
            return allItems(select).stream().map(TableItems::audit).toList();
        } catch (SQLException e) {
            throw failure("query the audit log", e);
        }
    }

    // Rate limits

    @Override
    public long takePlace(Place place, long ceiling) {
        CounterWindow window = place.window();
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(window.userId(), window.action(), window.windowStart());
        return inTransaction("count a rate-limited event", connection -> {
            Optional<Map<String, Object>> current = selectItem(connection, key);
            Optional<Long> taken = place.attemptId()
                    .flatMap(attemptId -> current.flatMap(item -> TableItems.place(item, attemptId)));
            if (taken.isPresent()) {
                return taken.get();
            }
            long count = current.map(item -> TableItems.number(item, COUNT)).orElse(0L);
            if (count >= ceiling) {
                return count + 1;
            }
            Map<String, Object> item = new LinkedHashMap<>(current.orElseGet(() -> TableItems.counterItem(
                    window.userId(), window.action(), window.windowStart(), window.expiresAt(), 0)));
            item.put(COUNT, count + 1);
            place.attemptId().ifPresent(attemptId -> item.put(TableItems.placeAttribute(attemptId), count + 1));
            putItem(connection, item);
            return count + 1;
        });
    }

    @Override
    public void givePlaceBack(Place place) {
        inTransaction("give back a rate-limit place", connection -> {
            givePlaceBack(connection, place);
            return null;
        });
    }

    /** Count down by one and drop the attempt's mark, only while the mark is there: never twice. */
    private void givePlaceBack(Connection connection, Place place) throws SQLException {
        CounterWindow window = place.window();
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(window.userId(), window.action(), window.windowStart());
        if (place.attemptId().isEmpty()) {
            return;
        }
        String attemptId = place.attemptId().get();
        Optional<Map<String, Object>> current = selectItem(connection, key);
        if (current.isEmpty() || TableItems.place(current.get(), attemptId).isEmpty()) {
            return;
        }
        Map<String, Object> item = new LinkedHashMap<>(current.get());
        item.put(COUNT, TableItems.number(item, COUNT) - 1);
        item.remove(TableItems.placeAttribute(attemptId));
        putItem(connection, item);
    }

    @Override
    public void keepPlace(Place place) {
        if (place.attemptId().isEmpty()) {
            return;
        }
        String attemptId = place.attemptId().get();
        CounterWindow window = place.window();
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(window.userId(), window.action(), window.windowStart());
        inTransaction("keep a rate-limit place", connection -> {
            Optional<Map<String, Object>> current = selectItem(connection, key);
            if (current.isPresent() && TableItems.place(current.get(), attemptId).isPresent()) {
                Map<String, Object> item = new LinkedHashMap<>(current.get());
                item.remove(TableItems.placeAttribute(attemptId));
                putItem(connection, item);
            }
            return null;
        });
    }

    @Override
    public int deleteCounters(String userId, String action) {
        String partition = TableKeys.rateLimitPartition(userId, action);
        return inTransaction("delete rate-limit counters", connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_PARTITION)) {
                delete.setString(1, partition);
                return (int) allItems(delete).stream().filter(item -> TableItems.number(item, COUNT) > 0).count();
            }
        });
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(SELECT_ACTIVE_SK_RANGE)) {
            select.setString(1, TableKeys.rateLimitPartition(userId, action));
            select.setString(2, TableKeys.rateLimitWindow(userId, action, fromWindowStart).sk());
            select.setString(3, TableKeys.rateLimitWindow(userId, action, toWindowStart).sk());
            select.setLong(4, now.getEpochSecond());
            return allItems(select).stream().map(TableItems::counter).toList();
        } catch (SQLException e) {
            throw failure("read rate-limit counters", e);
        }
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        return inTransaction("claim a cooldown", connection -> {
            Optional<Map<String, Object>> current = selectItem(connection, key);
            if (current.isPresent()
                    && !cooldown.attemptId().equals(current.get().get(ItemAttributes.CLAIMED_BY))
                    && TableItems.busyUntil(current.get()).isAfter(cooldown.now())) {
                return Optional.of(TableItems.busyUntil(current.get()));
            }
            if (current.isEmpty() || !cooldown.attemptId().equals(current.get().get(ItemAttributes.CLAIMED_BY))) {
                putItem(connection, TableItems.cooldownItem(cooldown, cooldown.endsAt().plus(RateLimiter.COUNTER_GRACE)));
            }
            return Optional.<Instant>empty();
        });
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        inTransaction("release a cooldown", connection -> {
            Optional<Map<String, Object>> current = selectItem(connection, key);
            if (current.isPresent() && cooldown.attemptId().equals(current.get().get(ItemAttributes.CLAIMED_BY))) {
                try (PreparedStatement delete = connection.prepareStatement(DELETE_ITEM)) {
                    delete.setString(1, key.pk());
                    delete.setString(2, key.sk());
                    delete.executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(SELECT_ACTIVE_ITEM)) {
            select.setString(1, key.pk());
            select.setString(2, key.sk());
            select.setLong(3, now.getEpochSecond());
            return allItems(select).stream().findFirst().map(TableItems::counter);
        } catch (SQLException e) {
            throw failure("read a rate-limit counter", e);
        }
    }

    // Idempotency-Keys

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(pending.keyDigest());
        return inTransaction("claim an Idempotency-Key", connection -> {
            Optional<IdempotencyRecord> current = selectItem(connection, key)
                    .filter(item -> TableItems.number(item, TTL) > pending.claimedAt().getEpochSecond())
                    .map(TableItems::idempotency);
            boolean free = current.isEmpty()
                    || current.get().claimedBy().equals(pending.claimedBy())
                    || (!current.get().done() && current.get().claimedAt().isBefore(staleBefore));
            if (!free) {
                return current;
            }
            if (current.isEmpty() || !current.get().claimedBy().equals(pending.claimedBy())) {
                putItem(connection, TableItems.idempotencyItem(pending));
            }
            return Optional.<IdempotencyRecord>empty();
        });
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(keyDigest);
        inTransaction("store an idempotent answer", connection -> {
            Optional<IdempotencyRecord> current = selectItem(connection, key).map(TableItems::idempotency)
                    .filter(record -> record.claimedBy().equals(claimedBy));
            if (current.isPresent()) {
                IdempotencyRecord record = current.get();
                putItem(connection, TableItems.idempotencyItem(new IdempotencyRecord(record.keyDigest(),
                        record.requestDigest(), record.claimedBy(), record.claimedAt(), Optional.of(answer),
                        record.expiresAt())));
            }
            return null;
        });
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(keyDigest);
        inTransaction("release an Idempotency-Key", connection -> {
            if (selectItem(connection, key).map(TableItems::idempotency)
                    .filter(record -> record.claimedBy().equals(claimedBy) && !record.done()).isPresent()) {
                try (PreparedStatement delete = connection.prepareStatement(DELETE_ITEM)) {
                    delete.setString(1, key.pk());
                    delete.setString(2, key.sk());
                    delete.executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(keyDigest);
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement(SELECT_ACTIVE_ITEM)) {
            select.setString(1, key.pk());
            select.setString(2, key.sk());
            select.setLong(3, now.getEpochSecond());
            return allItems(select).stream().findFirst().map(TableItems::idempotency);
        } catch (SQLException e) {
            throw failure("read an Idempotency-Key", e);
        }
    }

    // Operations

    /**
     * Ready when a write could happen now: takes the write lock ({@code BEGIN IMMEDIATE}) and ends the empty
     * transaction at once. A database another process keeps locked, or a full or read-only disk, is not ready although it
     * can still be read.
     */
    @Override
    public void checkReady() {
        inTransaction("check readiness (take the write lock)", connection -> {
            // Holding the write lock is the proof; the empty transaction then commits nothing.
            return null;
        });
    }

    /**
     * Deletes rows whose ttl passed more than the grace period before {@code now}; returns how many.
     * Housekeeping only: nothing depends on it for correctness.
     */
    public int sweepExpired(Instant now) {
        long cutoff = now.minus(sweepGrace).getEpochSecond();
        int total = 0;
        int deleted;
        do {
            // One batch per transaction, so that the sweep never holds the writer for long.
            deleted = inTransaction("sweep expired rows", connection -> {
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

    @Override
    public void close() {
        sweeper.shutdownNow();
        writer.close();
        dataSource.close();
    }

    /** The writer, for tests of the grouping. */
    GroupCommitWriter writer() {
        return writer;
    }

    /** The value of a PRAGMA on the store's own connections (settings are per connection). For tests. */
    String pragma(String name) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("PRAGMA " + name)) {
            return result.next() ? result.getString(1) : null;
        } catch (SQLException e) {
            throw failure("read PRAGMA " + name, e);
        }
    }

    /** Writes an item as it is, replacing any item with its key. For test fixtures that need a raw item. */
    void putItem(Map<String, Object> item) {
        inTransaction("put an item", connection -> {
            putItem(connection, item);
            return null;
        });
    }

    private void putItem(Connection connection, Map<String, Object> item) throws SQLException {
        try (PreparedStatement put = connection.prepareStatement(PUT_ITEM)) {
            bindItem(put, item);
            put.executeUpdate();
        }
    }

    // Helpers

    /**
     * Runs {@code body} as one transaction on the store's writer ({@link GroupCommitWriter}): atomic, isolated from
     * the transactions committed with it (each in a savepoint of its own, one after another), and acknowledged
     * only once the batch it was committed in is on disk. A body that throws leaves nothing written.
     */
    private <T> T inTransaction(String what, GroupCommitWriter.Body<T> body) {
        return writer.run(what, body);
    }

    private int insertIfAbsent(Connection connection, Map<String, Object> item) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT_IF_ABSENT)) {
            bindItem(insert, item);
            return insert.executeUpdate();
        }
    }

    private void bindItem(PreparedStatement statement, Map<String, Object> item) throws SQLException {
        statement.setString(1, TableItems.string(item, ItemAttributes.PK));
        statement.setString(2, TableItems.string(item, ItemAttributes.SK));
        statement.setString(3, TableItems.optionalString(item, ItemAttributes.GSI1PK).orElse(null));
        statement.setString(4, TableItems.optionalString(item, ItemAttributes.GSI1SK).orElse(null));
        if (item.get(TTL) instanceof Number ttl) {
            statement.setLong(5, ttl.longValue());
        } else {
            statement.setNull(5, java.sql.Types.INTEGER);
        }
        statement.setString(6, json.writeValueAsString(item));
    }

    private void deleteItem(TableKeys.PrimaryKey key) {
        inTransaction("delete an item", connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_ITEM)) {
                delete.setString(1, key.pk());
                delete.setString(2, key.sk());
                return delete.executeUpdate();
            }
        });
    }

    /** The items of one GSI1 partition whose sort key has the prefix; with {@code activeAt}, only unexpired ones. */
    private List<Map<String, Object>> selectByIndexPrefix(String gsi1pk, String gsi1skPrefix, Optional<Instant> activeAt) {
        try (Connection connection = dataSource.getConnection()) {
            return selectByIndexPrefix(connection, gsi1pk, gsi1skPrefix, activeAt);
        } catch (SQLException e) {
            throw failure("query through the user index", e);
        }
    }

    private List<Map<String, Object>> selectByIndexPrefix(Connection connection, String gsi1pk, String gsi1skPrefix,
                                                          Optional<Instant> activeAt) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                activeAt.isPresent() ? SELECT_ACTIVE_BY_GSI1_PREFIX : SELECT_BY_GSI1_PREFIX)) {
            select.setString(1, gsi1pk);
            select.setString(2, gsi1skPrefix);
            select.setString(3, gsi1skPrefix + SqliteSchema.PREFIX_END);
            if (activeAt.isPresent()) {
                select.setLong(4, activeAt.get().getEpochSecond());
            }
            return allItems(select);
        }
    }

    private List<Map<String, Object>> deleteByIndexPrefix(String gsi1pk, String gsi1skPrefix) {
        return inTransaction("delete through the user index", connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_BY_GSI1_PREFIX)) {
                delete.setString(1, gsi1pk);
                delete.setString(2, gsi1skPrefix);
                delete.setString(3, gsi1skPrefix + SqliteSchema.PREFIX_END);
                return allItems(delete);
            }
        });
    }

    private Optional<Map<String, Object>> selectItem(Connection connection, TableKeys.PrimaryKey key)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(SELECT_ITEM)) {
            select.setString(1, key.pk());
            select.setString(2, key.sk());
            return firstItem(select);
        }
    }

    private Optional<Map<String, Object>> firstItem(PreparedStatement statement) throws SQLException {
        List<Map<String, Object>> items = allItems(statement);
        return items.isEmpty() ? Optional.empty() : Optional.of(items.get(0));
    }

    private List<Map<String, Object>> allItems(PreparedStatement statement) throws SQLException {
        List<Map<String, Object>> items = new ArrayList<>();
        try (ResultSet result = statement.executeQuery()) {
            while (result.next()) {
                items.add(json.readValue(result.getString(1), ITEM_TYPE));
            }
        }
        return items;
    }

    /**
     * A failed statement. SQLITE_BUSY (another process held the database's lock past the wait) and a pooled
     * connection not free within the wait (the pool's SQLTransientConnectionException) are BUSY.
     */
    static StoreException failure(String what, SQLException e) {
        int primary = e.getErrorCode() & 0xff; // an extended code (SQLITE_BUSY_SNAPSHOT, ...) holds the primary one
        boolean busy = primary == SQLITE_BUSY || primary == SQLITE_LOCKED
                || e instanceof java.sql.SQLTransientConnectionException;
        StoreException.Kind kind = busy ? StoreException.Kind.BUSY : StoreException.Kind.FAILED;
        return new StoreException(kind, "the embedded store could not " + what + ": " + e.getMessage(), e);
    }

    /** SQLite's primary result codes for a lock held by another connection (sqlite-jdbc's getErrorCode). */
    private static final int SQLITE_BUSY = 5;
    private static final int SQLITE_LOCKED = 6;
}

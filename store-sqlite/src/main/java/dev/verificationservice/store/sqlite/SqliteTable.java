package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.TTL;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plumbing every repository of the SQLite store shares: the database file (created owner-only), its
 * connection pool for reads, the one writer every write transaction goes through ({@link GroupCommitWriter}),
 * the statements on single items and on GSI1, the mapping of a row to its item (the JSON in {@code item}) and
 * of a failed statement to a {@link StoreException}. The repositories ({@link SqliteCodes}, ...) hold the
 * statements and algorithms of their access patterns; {@link SqliteVerificationStore} tells the whole.
 */
final class SqliteTable implements AutoCloseable {

    // The store's logger, under the name operators already configure.
    private static final Logger LOG = LoggerFactory.getLogger(SqliteVerificationStore.class);
    private static final int POOL_SIZE = 4;
    /** The write-ahead log's size, in pages of 4 KiB, past which a COMMIT checkpoints (SQLite's default: 1,000). */
    static final int WAL_AUTOCHECKPOINT_PAGES = 4000;
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    /** The database and the files SQLite keeps beside it. */
    private static final List<String> DATABASE_FILES = List.of("", "-wal", "-shm", "-journal");

    // Statements, each the SQL form of one DynamoDB request of the same access pattern. JDBC binds the ?
    // parameters by position; the binding code beside each use says which value goes where.
    private static final String SELECT_ITEM = "SELECT item FROM items WHERE pk = ? AND sk = ?";
    private static final String INSERT_IF_ABSENT =
            "INSERT INTO items (pk, sk, gsi1pk, gsi1sk, ttl, item) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pk, sk) DO NOTHING";
    private static final String PUT_ITEM =
            "INSERT OR REPLACE INTO items (pk, sk, gsi1pk, gsi1sk, ttl, item) VALUES (?, ?, ?, ?, ?, ?)";
    static final String DELETE_ITEM = "DELETE FROM items WHERE pk = ? AND sk = ?";
    private static final String DELETE_BY_GSI1_PREFIX =
            "DELETE FROM items WHERE gsi1pk = ? AND gsi1sk >= ? AND gsi1sk < ? RETURNING item";
    private static final String SELECT_BY_GSI1_PREFIX =
            "SELECT item FROM items WHERE gsi1pk = ? AND gsi1sk >= ? AND gsi1sk < ? ORDER BY gsi1sk";
    private static final String SELECT_ACTIVE_BY_GSI1_PREFIX =
            "SELECT item FROM items WHERE gsi1pk = ? AND gsi1sk >= ? AND gsi1sk < ? AND ttl > ? ORDER BY gsi1sk";
    private static final String SELECT_BY_SK_PREFIX =
            "SELECT item FROM items WHERE pk = ? AND sk >= ? AND sk < ? ORDER BY sk";
    private static final String DELETE_BY_SK_PREFIX =
            "DELETE FROM items WHERE pk = ? AND sk >= ? AND sk < ? RETURNING item";
    static final String SELECT_ACTIVE_ITEM = "SELECT item FROM items WHERE pk = ? AND sk = ? AND ttl > ?";

    private static final TypeReference<LinkedHashMap<String, Object>> ITEM_TYPE = new TypeReference<>() {
    };

    private final HikariDataSource dataSource;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    // Made once: a reader and a writer for the item type skip the type lookups ObjectMapper does on every call.
    private static final ObjectReader ITEM_READER = JSON.readerFor(ITEM_TYPE);
    private static final ObjectWriter ITEM_WRITER = JSON.writerFor(new TypeReference<Map<String, Object>>() {
    });
    private final GroupCommitWriter writer;
    private final SqliteSchema.Layout layout;
    private final List<Runnable> eventListeners = new CopyOnWriteArrayList<>();
    /** Which audit items enter the outbox; set once by the store, which owns the endpoints it reads. */
    private volatile EventSubscriptions subscriptions;

    private SqliteTable(Path databaseFile, Duration lockWait) {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        // A commit is on disk before it is acknowledged. Without that, a power loss can roll back the last commits:
        // a used code usable again, failure counts lowered, a handed-out device secret gone. FULL on every
        // connection; the writer's alone commits with NORMAL and syncs the log itself before it answers anyone
        // (WriteAheadLog, GroupCommitWriter), so that the sync does not hold up the next batch.
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout((int) lockWait.toMillis());
        // Savepoint journals in memory: every unit's steps and every transaction of a batch run in savepoints, and
        // with the default a journal past 64 KiB spilled to a new temporary file (created, written, deleted) on the
        // writer's thread. Only a rollback to a savepoint reads it; recovery after a crash never does (WAL mode).
        config.setTempStore(SQLiteConfig.TempStore.MEMORY);
        // The store reads no generated keys; with them on, sqlite-jdbc compiles and runs a SELECT after every INSERT.
        config.setGetGeneratedKeys(false);
        // Transactions are begun as BEGIN IMMEDIATE (see inTransaction): they take the write lock when they begin,
        // so two read-then-write transactions never deadlock.
        SQLiteDataSource sqlite = new SQLiteDataSource(config);
        sqlite.setUrl("jdbc:sqlite:" + databaseFile.toAbsolutePath());
        HikariConfig pool = new HikariConfig();
        // Every connection, the pool's and the writer's, keeps its prepared statements (StatementCache).
        pool.setDataSource(StatementCache.caching(sqlite));
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
            this.layout = createSchema();
        } catch (StoreException e) {
            dataSource.close();
            throw cannotOpen(databaseFile, e);
        }
        try {
            // The one connection every write goes through (group commit); the pool serves the reads.
            Connection writerConnection = StatementCache.caching(sqlite.getConnection());
            try (Statement statement = writerConnection.createStatement()) {
                statement.execute(WriteAheadLog.WRITER_PRAGMA);
                // Checkpoints stay in the writer's COMMIT, fewer and larger: each costs two syncs whatever it copies,
                // and a page written several times between two checkpoints is copied once.
                statement.execute("PRAGMA wal_autocheckpoint=" + WAL_AUTOCHECKPOINT_PAGES);
            }
            this.writer = new GroupCommitWriter(writerConnection, lockWait, "verification-sqlite-writer",
                    new WriteAheadLog(databaseFile));
            writer.afterMarkedDurable(() -> eventListeners.forEach(Runnable::run));
        } catch (SQLException e) {
            dataSource.close();
            throw cannotOpen(databaseFile, e);
        }
        restrictFilesToOwner(databaseFile);
    }

    /**
     * Opens (creating if needed) {@value SqliteVerificationStore#DATABASE_FILE} in {@code dataDirectory}, creating
     * the directory owner-only if it is missing.
     */
    static SqliteTable open(Path dataDirectory, Duration lockWait) {
        // Before anything is created: a host that got an untested driver learns it at its first start.
        SqliteDriver.requireSupported();
        try {
            if (!Files.isDirectory(dataDirectory)) {
                Files.createDirectories(dataDirectory);
                restrictToOwner(dataDirectory);
            }
        } catch (IOException e) {
            throw new StoreException("cannot create the data directory " + dataDirectory.toAbsolutePath()
                    + ": " + e.getMessage() + "; set VERIFICATION_DATA_DIR to a writable directory", e);
        }
        Path databaseFile = dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE);
        createOwnerOnly(databaseFile);
        return new SqliteTable(databaseFile, lockWait);
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

    private SqliteSchema.Layout createSchema() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(SqliteSchema.CREATE_TABLE);
            SqliteSchema.Layout layout = SqliteSchema.Layout.of(connection);
            if (layout == SqliteSchema.Layout.WRITE_ORDER) {
                statement.execute(SqliteSchema.CREATE_KEY);
            }
            statement.execute(SqliteSchema.CREATE_GSI1);
            statement.execute(SqliteSchema.DROP_TTL_INDEX);
            statement.execute(SqliteSchema.CREATE_OUTBOX_INDEX);
            return layout;
        } catch (SQLException e) {
            throw failure("create the schema", e);
        }
    }

    /** How this file stores its rows: the sweep walks them in that order. */
    SqliteSchema.Layout layout() {
        return layout;
    }

    @Override
    public void close() {
        writer.close();
        dataSource.close();
    }

    GroupCommitWriter writer() {
        return writer;
    }

    /**
     * A connection of the pool, for a read; the caller closes it. Within a unit of work, the writer's connection
     * (closing it does nothing): the unit reads what it and the transactions before it in its batch wrote.
     */
    Connection readConnection() throws SQLException {
        return writer.holdsCallingThread() ? writer.unitConnection() : dataSource.getConnection();
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

    void subscriptions(EventSubscriptions view) {
        subscriptions = view;
    }

    EventSubscriptions subscriptions() {
        return subscriptions;
    }

    /** An audit entry's item, in the outbox when some endpoint subscribes to its type. */
    Map<String, Object> auditItem(AuditEntry entry) {
        return AuditItems.auditItem(entry, subscriptions.isEvent(entry));
    }

    void putItem(Connection connection, Map<String, Object> item) throws SQLException {
        try (PreparedStatement put = connection.prepareStatement(PUT_ITEM)) {
            bindItem(put, item);
            put.executeUpdate();
        }
        markIfNewEvent(item);
    }

    /**
     * Calls {@code listener} each time a transaction that wrote an audit item into the outbox is durable; the answer
     * removes it. The listeners run on the writer's threads and must return at once.
     */
    Runnable onNewEvents(Runnable listener) {
        eventListeners.add(listener);
        return () -> eventListeners.remove(listener);
    }

    private void markIfNewEvent(Map<String, Object> item) {
        if (item.get(ItemAttributes.OUTBOX_PK) instanceof String outbox
                && outbox.startsWith(TableKeys.outboxEventsPrefix())) {
            writer.mark();
        }
    }

    /**
     * Runs {@code body} as one transaction on the store's writer ({@link GroupCommitWriter}): atomic, isolated from
     * the transactions committed with it (each in a savepoint of its own, one after another), and acknowledged
     * only once the batch it was committed in is on disk. A body that throws leaves nothing written.
     */
    <T> T inTransaction(String what, GroupCommitWriter.Body<T> body) {
        return writer.run(what, body);
    }

    int insertIfAbsent(Connection connection, Map<String, Object> item) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT_IF_ABSENT)) {
            bindItem(insert, item);
            int inserted = insert.executeUpdate();
            if (inserted == 1) {
                markIfNewEvent(item);
            }
            return inserted;
        }
    }

    /**
     * Binds {@code item} to the first six parameters, {@code (pk, sk, gsi1pk, gsi1sk, ttl, item)}, of a statement
     * that writes it.
     */
    void bindItem(PreparedStatement statement, Map<String, Object> item) throws SQLException {
        statement.setString(1, TableItems.string(item, ItemAttributes.PK));
        statement.setString(2, TableItems.string(item, ItemAttributes.SK));
        statement.setString(3, TableItems.optionalString(item, ItemAttributes.GSI1PK).orElse(null));
        statement.setString(4, TableItems.optionalString(item, ItemAttributes.GSI1SK).orElse(null));
        if (item.get(TTL) instanceof Number ttl) {
            statement.setLong(5, ttl.longValue());
        } else {
            statement.setNull(5, java.sql.Types.INTEGER);
        }
        statement.setString(6, ITEM_WRITER.writeValueAsString(item));
    }

    void deleteItem(TableKeys.PrimaryKey key) {
        inTransaction("delete an item", connection -> deleteItem(connection, key));
    }

    /** Deletes the item with the key, in the caller's transaction; returns how many rows went (0 or 1). */
    int deleteItem(Connection connection, TableKeys.PrimaryKey key) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_ITEM)) {
            delete.setString(1, key.pk());
            delete.setString(2, key.sk());
            return delete.executeUpdate();
        }
    }

    /** The items of one GSI1 partition whose sort key has the prefix; with {@code activeAt}, only unexpired ones. */
    List<Map<String, Object>> selectByIndexPrefix(String gsi1pk, String gsi1skPrefix, Optional<Instant> activeAt) {
        try (Connection connection = readConnection()) {
            return selectByIndexPrefix(connection, gsi1pk, gsi1skPrefix, activeAt);
        } catch (SQLException e) {
            throw failure("query through the user index", e);
        }
    }

    List<Map<String, Object>> selectByIndexPrefix(Connection connection, String gsi1pk, String gsi1skPrefix,
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

    List<Map<String, Object>> deleteByIndexPrefix(String gsi1pk, String gsi1skPrefix) {
        return inTransaction("delete through the user index", connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_BY_GSI1_PREFIX)) {
                delete.setString(1, gsi1pk);
                delete.setString(2, gsi1skPrefix);
                delete.setString(3, gsi1skPrefix + SqliteSchema.PREFIX_END);
                return allItems(delete);
            }
        });
    }

    /** The items of one partition whose sort key has the prefix: {@code PK = :pk AND begins_with(SK, :prefix)}. */
    List<Map<String, Object>> selectByKeyPrefix(Connection connection, String pk, String skPrefix) throws SQLException {
        return byKeyPrefix(connection, SELECT_BY_SK_PREFIX, pk, skPrefix);
    }

    /** Deletes the items of one partition whose sort key has the prefix, in the caller's transaction; returns them. */
    List<Map<String, Object>> deleteByKeyPrefix(Connection connection, String pk, String skPrefix) throws SQLException {
        return byKeyPrefix(connection, DELETE_BY_SK_PREFIX, pk, skPrefix);
    }

    private List<Map<String, Object>> byKeyPrefix(Connection connection, String sql, String pk, String skPrefix)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, pk);
            statement.setString(2, skPrefix);
            statement.setString(3, skPrefix + SqliteSchema.PREFIX_END);
            return allItems(statement);
        }
    }

    Optional<Map<String, Object>> selectItem(Connection connection, TableKeys.PrimaryKey key)
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

    List<Map<String, Object>> allItems(PreparedStatement statement) throws SQLException {
        List<Map<String, Object>> items = new ArrayList<>();
        try (ResultSet result = statement.executeQuery()) {
            while (result.next()) {
                items.add(ITEM_READER.readValue(result.getString(1)));
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

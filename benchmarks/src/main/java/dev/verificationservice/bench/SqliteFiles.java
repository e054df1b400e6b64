package dev.verificationservice.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the benchmarks do to an embedded store's file beside the store itself: load many codes at once, and
 * switch an open store from {@code synchronous=FULL} (the product's setting) to {@code NORMAL} to measure what
 * FULL costs. Neither is a product path.
 */
public final class SqliteFiles {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INSERT = "INSERT OR IGNORE INTO items (pk, sk, gsi1pk, gsi1sk, ttl, item) VALUES (?, ?, ?, ?, ?, ?)";

    private SqliteFiles() {
    }

    /**
     * Writes the items into the store's table in one transaction on a connection of its own, unsynced: the way
     * to put a million codes in a file in seconds. The rows are exactly what the store writes (the same item
     * maps, the same columns); the store may be open meanwhile.
     */
    public static void insertItems(Path databaseFile, List<Map<String, Object>> items) {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + databaseFile.toAbsolutePath())) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("PRAGMA busy_timeout = 10000");
                statement.execute("PRAGMA synchronous = OFF");
                statement.execute("BEGIN IMMEDIATE");
            }
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                int pending = 0;
                for (Map<String, Object> item : items) {
                    insert.setString(1, TableItems.string(item, ItemAttributes.PK));
                    insert.setString(2, TableItems.string(item, ItemAttributes.SK));
                    insert.setString(3, TableItems.optionalString(item, ItemAttributes.GSI1PK).orElse(null));
                    insert.setString(4, TableItems.optionalString(item, ItemAttributes.GSI1SK).orElse(null));
                    if (item.get(ItemAttributes.TTL) instanceof Number ttl) {
                        insert.setLong(5, ttl.longValue());
                    } else {
                        insert.setNull(5, java.sql.Types.INTEGER);
                    }
                    insert.setString(6, JSON.writeValueAsString(item));
                    insert.addBatch();
                    if (++pending == 1000) {
                        insert.executeBatch();
                        pending = 0;
                    }
                }
                insert.executeBatch();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("COMMIT");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("bulk insert into " + databaseFile + " failed", e);
        }
    }

    /** Deletes every row whose partition key starts with one of the prefixes (a benchmark's own users). */
    public static int deleteByPrefix(Path databaseFile, List<String> pkPrefixes) {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + databaseFile.toAbsolutePath());
             Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA busy_timeout = 10000");
            int deleted = 0;
            for (String prefix : pkPrefixes) {
                try (PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM items WHERE pk >= ? AND pk < ?")) {
                    delete.setString(1, prefix);
                    delete.setString(2, prefix + "\uFFFF");
                    deleted += delete.executeUpdate();
                }
            }
            return deleted;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads the file once from start to end, so that its pages are in the operating system's cache. */
    public static void readWhole(Path file) {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 20];
            while (in.read(buffer) >= 0) {
                // only the page cache is wanted
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts the rows whose partition key starts with {@code pkPrefix} (a {@code TableKeys} prefix; "" for all). */
    public static long countRows(Path databaseFile, String pkPrefix) {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + databaseFile.toAbsolutePath());
             PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM items WHERE pk >= ? AND pk < ?")) {
            count.setString(1, pkPrefix);
            count.setString(2, pkPrefix + "\uFFFF");
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The write transactions the open store's one writer has run and the COMMITs (each one sync of the file with
     * {@code synchronous=FULL}) it has made so far: group commit makes fewer commits than transactions under
     * concurrency. Read from the store's private writer: a benchmark's tool.
     */
    public static long[] writerCounts(SqliteVerificationStore store) {
        try {
            Object writer = privateField(privateField(store, "table"), "writer");
            return new long[] {(long) privateCall(writer, "transactions"), (long) privateCall(writer, "commits")};
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the writer's counts", e);
        }
    }

    private static Object privateField(Object owner, String name) throws ReflectiveOperationException {
        Field field = owner.getClass().getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
    }

    private static Object privateCall(Object owner, String name) throws ReflectiveOperationException {
        java.lang.reflect.Method method = owner.getClass().getDeclaredMethod(name);
        method.setAccessible(true);
        return method.invoke(owner);
    }

    /**
     * Sets {@code PRAGMA synchronous} on every connection of the open store's pool and on its writer. Only the
     * writer commits anything; it commits with {@code NORMAL} and syncs the log itself before it answers (the
     * product's durability, which the pool's {@code FULL} states as well). With {@code NORMAL} here the writer's
     * own sync is turned off too: commits are not synced to disk, a power loss may roll back the last ones.
     * Reaches into the store's private parts while it is idle: a benchmark's tool, so that the product offers
     * no such switch. Returns the value every connection then reports.
     */
    public static List<String> setSynchronous(SqliteVerificationStore store, String mode) {
        try {
            // The pool and the writer live in the store's SqliteTable.
            Field tableField = SqliteVerificationStore.class.getDeclaredField("table");
            tableField.setAccessible(true);
            Object table = tableField.get(store);
            Field field = table.getClass().getDeclaredField("dataSource");
            field.setAccessible(true);
            HikariDataSource pool = (HikariDataSource) field.get(table);
            List<Connection> held = new ArrayList<>();
            List<String> modes = new ArrayList<>();
            try {
                for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                    Connection connection = pool.getConnection();
                    held.add(connection);
                    modes.add(setAndRead(connection, mode));
                }
            } finally {
                for (Connection connection : held) {
                    connection.close();
                }
            }
            Field writerField = table.getClass().getDeclaredField("writer");
            writerField.setAccessible(true);
            Object writer = writerField.get(table);
            Field connectionField = writer.getClass().getDeclaredField("connection");
            connectionField.setAccessible(true);
            modes.add("writer " + setAndRead((Connection) connectionField.get(writer),
                    mode.equals("FULL") ? "NORMAL" : mode));
            if (!mode.equals("FULL")) {
                Field durability = writer.getClass().getDeclaredField("durability");
                durability.setAccessible(true);
                Class<?> durabilityType = durability.getType();
                Field alreadyDurable = durabilityType.getField("ALREADY_DURABLE");
                alreadyDurable.setAccessible(true);
                durability.set(writer, alreadyDurable.get(null));
                modes.add("writer's own log sync off");
            }
            return modes;
        } catch (ReflectiveOperationException | SQLException e) {
            throw new IllegalStateException("cannot set synchronous=" + mode, e);
        }
    }

    private static String setAndRead(Connection connection, String mode) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA synchronous=" + mode);
            try (ResultSet result = statement.executeQuery("PRAGMA synchronous")) {
                result.next();
                return result.getString(1);
            }
        }
    }
}

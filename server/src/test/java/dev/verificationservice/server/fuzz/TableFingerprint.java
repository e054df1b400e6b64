package dev.verificationservice.server.fuzz;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import org.sqlite.SQLiteConfig;

/**
 * The content of the embedded store's table, read directly from its SQLite file over a separate read-only
 * connection: the row count and a SHA-256 over {@code pk, sk, item} of every row in key order.
 *
 * <p>Reading the whole table before and after every request would be slow, so the fingerprint is cached and only
 * recomputed when {@code PRAGMA data_version} says another connection committed since it was taken (SQLite
 * guarantees that value changes whenever another connection commits to the file). Every {@value #RECHECK_EVERY}th
 * read recomputes anyway and checks the shortcut agreed.
 */
final class TableFingerprint implements StoreFingerprint {

    private static final int RECHECK_EVERY = 997;

    private final Connection connection;
    private long cachedVersion = Long.MIN_VALUE;
    private Print cached;
    private long reads;
    private long recomputations;
    private long recomputeNanos;

    TableFingerprint(Path databaseFile) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setBusyTimeout(10_000);
        this.connection = config.createConnection("jdbc:sqlite:" + databaseFile.toAbsolutePath());
    }

    @Override
    public Print current() {
        try {
            reads++;
            long version = dataVersion();
            if (cached != null && version == cachedVersion) {
                if (reads % RECHECK_EVERY == 0) {
                    Print fresh = compute();
                    if (!fresh.equals(cached)) {
                        throw new IllegalStateException("PRAGMA data_version did not change, but the table did: "
                                + cached + " became " + fresh);
                    }
                }
                return cached;
            }
            cached = compute();
            cachedVersion = version;
            return cached;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the SQLite table for its fingerprint", e);
        }
    }

    @Override
    public long recomputations() {
        return recomputations;
    }

    @Override
    public long recomputeMillis() {
        return recomputeNanos / 1_000_000;
    }

    private long dataVersion() throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("PRAGMA data_version")) {
            result.next();
            return result.getLong(1);
        }
    }

    private Print compute() throws SQLException {
        long started = System.nanoTime();
        MessageDigest digest = StoreFingerprint.sha256();
        long rows = 0;
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT pk, sk, item FROM items ORDER BY pk, sk")) {
            while (result.next()) {
                rows++;
                for (int column = 1; column <= 3; column++) {
                    byte[] value = result.getBytes(column);
                    digest.update(value == null ? new byte[0] : value);
                    digest.update((byte) 0x1F);
                }
                digest.update((byte) 0x1E);
            }
        }
        recomputations++;
        recomputeNanos += System.nanoTime() - started;
        return new Print(rows, HexFormat.of().formatHex(digest.digest()));
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}

package dev.verificationservice.store.sqlite;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.testsupport.time.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The whole contract suite, and every test of the embedded store, on a file as earlier releases created it: its rows
 * clustered on the key ({@code WITHOUT ROWID}), with the ttl index they kept. Such a file is opened as it is and
 * keeps working: the upgrade asks nothing of its operator.
 */
class SqliteKeyOrderedFileTest extends SqliteVerificationStoreTest {

    /** The schema as releases before the write-order layout created it. */
    private static final String[] EARLIER_SCHEMA = {
        """
        CREATE TABLE items (
            pk     TEXT NOT NULL,
            sk     TEXT NOT NULL,
            gsi1pk TEXT,
            gsi1sk TEXT,
            ttl    INTEGER,
            item   TEXT NOT NULL CHECK (json_valid(item)),
            PRIMARY KEY (pk, sk)
        ) WITHOUT ROWID""",
        "CREATE INDEX gsi1 ON items (gsi1pk, gsi1sk) WHERE gsi1pk IS NOT NULL",
        "CREATE INDEX items_ttl ON items (ttl) WHERE ttl IS NOT NULL",
        "CREATE INDEX outbox ON items (json_extract(item, '$.OUTBOXPK'), json_extract(item, '$.OUTBOXSK'))"
                + " WHERE json_extract(item, '$.OUTBOXPK') IS NOT NULL",
    };

    @Override
    protected VerificationStore openStore(MutableClock clock) {
        Path file = dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE);
        if (!Files.exists(file)) {
            try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement statement = connection.createStatement()) {
                statement.execute("PRAGMA journal_mode=WAL");
                for (String ddl : EARLIER_SCHEMA) {
                    statement.execute(ddl);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        return super.openStore(clock);
    }

    @Override
    SqliteSchema.Layout layoutOfThisTest() {
        return SqliteSchema.Layout.KEY_ORDER;
    }
}

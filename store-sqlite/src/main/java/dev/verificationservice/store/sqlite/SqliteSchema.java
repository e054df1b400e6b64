package dev.verificationservice.store.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The single table in SQLite. Every item is one row: its key attributes as columns (so that the primary
 * key, the GSI1 index and the ttl can be searched) and the whole item, key attributes included, as a JSON
 * object in {@code item}, exactly the attributes it has on DynamoDB.
 *
 * <p>The rows are stored in the order they were written, and the key {@code (pk, sk)} is a unique index
 * beside them ({@link Layout#WRITE_ORDER}). Codes and a target's counters have keys in random places (HMACs): with
 * the rows themselves ordered by key, each new row dirtied a page of whole items (about five to a page) somewhere in
 * the table, to be written to the log and again at the checkpoint; now it dirties a page of small index entries,
 * and the rows go to the end of the table, where the rows of one batch share pages. A file created before keeps its
 * rows in key order ({@link Layout#KEY_ORDER}) and works as it is: every statement is the same on both.
 */
final class SqliteSchema {

    /** How the rows of {@code items} are stored; {@link #of} tells a file's. */
    enum Layout {
        /** A rowid table with the key as a unique index: files created by this release on. */
        WRITE_ORDER,
        /** {@code WITHOUT ROWID}, clustered on the key: files created by earlier releases, opened as they are. */
        KEY_ORDER;

        /** The layout of the file {@code connection} opened, whose {@code items} table exists. */
        static Layout of(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement();
                 ResultSet table = statement.executeQuery(WITHOUT_ROWID)) {
                return table.next() && table.getInt(1) == 1 ? KEY_ORDER : WRITE_ORDER;
            }
        }
    }

    static final String CREATE_TABLE = """
            CREATE TABLE IF NOT EXISTS items (
                pk     TEXT NOT NULL,
                sk     TEXT NOT NULL,
                gsi1pk TEXT,
                gsi1sk TEXT,
                ttl    INTEGER,
                item   TEXT NOT NULL CHECK (json_valid(item))
            )""";

    /** The primary key of a {@link Layout#WRITE_ORDER} table (a {@link Layout#KEY_ORDER} one is clustered on it). */
    static final String CREATE_KEY = "CREATE UNIQUE INDEX IF NOT EXISTS items_key ON items (pk, sk)";

    private static final String WITHOUT_ROWID = "SELECT wr FROM pragma_table_list('items')";

    /** GSI1: a sparse index, as on DynamoDB, holding only items that have GSI1PK. */
    static final String CREATE_GSI1 =
            "CREATE INDEX IF NOT EXISTS gsi1 ON items (gsi1pk, gsi1sk) WHERE gsi1pk IS NOT NULL";

    /**
     * The outbox of events out: a partial index on the item's OUTBOXPK / OUTBOXSK, holding only the items
     * that have them, like the sparse index on DynamoDB. An expression index needs no new column, so a database
     * written by an earlier version gets it on start without a migration.
     */
    static final String CREATE_OUTBOX_INDEX = "CREATE INDEX IF NOT EXISTS outbox ON items"
            + " (json_extract(item, '$.OUTBOXPK'), json_extract(item, '$.OUTBOXSK'))"
            + " WHERE json_extract(item, '$.OUTBOXPK') IS NOT NULL";

    /**
     * Earlier versions indexed {@code ttl} for the sweep. Many rows share one ttl (an hour's windows, a second's
     * codes), so the index's entries, ordered by ttl and then by the random key, made every write dirty one more
     * page in a random place of it: a third of a send's bytes in the write-ahead log. The sweep walks the table in
     * its rows' order instead ({@link SqliteSweep}), and the index is dropped on start.
     */
    static final String DROP_TTL_INDEX = "DROP INDEX IF EXISTS items_ttl";

    /** Sorts after every character a key may hold: closes a {@code begins_with} range. */
    static final String PREFIX_END = "\uFFFF";

    private SqliteSchema() {
    }
}

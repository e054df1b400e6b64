package dev.verificationservice.store.sqlite;

/**
 * The single table in SQLite. Every item is one row: its key attributes as columns (so that the primary
 * key, the GSI1 index and the ttl can be searched) and the whole item, key attributes included, as a JSON
 * object in {@code item}, exactly the attributes it has on DynamoDB.
 */
final class SqliteSchema {

    static final String CREATE_TABLE = """
            CREATE TABLE IF NOT EXISTS items (
                pk     TEXT NOT NULL,
                sk     TEXT NOT NULL,
                gsi1pk TEXT,
                gsi1sk TEXT,
                ttl    INTEGER,
                item   TEXT NOT NULL CHECK (json_valid(item)),
                PRIMARY KEY (pk, sk)
            ) WITHOUT ROWID""";

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
     * page in a random place of it: a third of a send's bytes in the write-ahead log. The sweep walks the table by
     * key instead ({@link SqliteSweep}), and the index is dropped on start.
     */
    static final String DROP_TTL_INDEX = "DROP INDEX IF EXISTS items_ttl";

    /** Sorts after every character a key may hold: closes a {@code begins_with} range. */
    static final String PREFIX_END = "\uFFFF";

    private SqliteSchema() {
    }
}

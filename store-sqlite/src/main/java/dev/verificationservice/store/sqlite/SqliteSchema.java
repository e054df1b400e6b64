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

    /** For the housekeeping sweep only. */
    static final String CREATE_TTL_INDEX = "CREATE INDEX IF NOT EXISTS items_ttl ON items (ttl) WHERE ttl IS NOT NULL";

    /** Sorts after every character a key may hold: closes a {@code begins_with} range. */
    static final String PREFIX_END = "\uFFFF";

    private SqliteSchema() {
    }
}

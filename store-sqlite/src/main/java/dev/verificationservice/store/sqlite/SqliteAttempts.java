package dev.verificationservice.store.sqlite;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The one write of an attempt that uses something up in the SQLite table (a code consumed, a time step accepted or a
 * factor confirmed, a recovery code used), in one transaction:
 * <ol>
 *   <li>the conditional {@code UPDATE}, whose {@code WHERE} is the rule and which stamps the item with the attempt
 *   id;</li>
 *   <li>no row updated: the item as it is (read in the same transaction, like {@code ALL_OLD}); stamped with this
 *   attempt: written (this attempt's own earlier success, a retry: nothing written again); otherwise refused, with
 *   the item as it is;</li>
 *   <li>else the attempt's audit entry inserted ({@code ON CONFLICT DO NOTHING}): a taken key is a StoreException and
 *   rolls the whole transaction back, nothing written;</li>
 *   <li>and the attempt's counted place given back ({@link SqliteCounters}), if it holds one.</li>
 * </ol>
 */
final class SqliteAttempts {

    private final SqliteTable table;
    private final SqliteCounters counters;

    SqliteAttempts(SqliteTable table, SqliteCounters counters) {
        this.table = table;
        this.counters = counters;
    }

    /** The outcome of one attempt's write. */
    sealed interface Outcome {
        /** This outcome in a port's words: {@code written}, or {@code refused} of the item as it is. */
        default <T> T answer(Supplier<T> written, Function<Optional<Map<String, Object>>, T> refused) {
            return this instanceof Refused refusal ? refused.apply(refusal.current()) : written.get();
        }

        record Written() implements Outcome {
        }

        record Refused(Optional<Map<String, Object>> current) implements Outcome {
        }
    }

    /** How an attempt's conditional statement is bound, the item's key included. */
    interface Binding {
        void bind(PreparedStatement update, TableKeys.PrimaryKey key) throws SQLException;
    }

    /** A further statement of an attempt that won, in its transaction: another item the same attempt changes. */
    interface Then {
        Then NOTHING = connection -> { };

        void run(Connection connection) throws SQLException;
    }

    /** One attempt's write, as the class says, changing only the item it updates. */
    Outcome write(String what, String entryWhat, TableKeys.PrimaryKey key, String statement, Binding binding,
                  Predicate<Map<String, Object>> ownWrite, AuditEntry entry, Optional<Place> place) {
        return write(what, entryWhat, key, statement, binding, ownWrite, entry, place, Then.NOTHING);
    }

    /**
     * One attempt's write, as the class says; when its update wins, {@code then} runs next in the same transaction
     * (a passkey's sign count beside the challenge the update consumed), before the entry.
     *
     * @param what      the transaction, as failures name it ("use a recovery code")
     * @param entryWhat the write, as a taken audit key's failure names it ("recovery-code use")
     * @param key       the item the statement updates
     * @param ownWrite  whether the item, as it is when nothing was updated, holds this attempt's write
     */
    Outcome write(String what, String entryWhat, TableKeys.PrimaryKey key, String statement, Binding binding,
                  Predicate<Map<String, Object>> ownWrite, AuditEntry entry, Optional<Place> place, Then then) {
        Map<String, Object> auditItem = table.auditItem(entry);
        return table.inTransaction(what, connection -> {
            int updated;
            try (PreparedStatement update = connection.prepareStatement(statement)) {
                binding.bind(update, key);
                updated = update.executeUpdate();
            }
            if (updated != 1) {
                Optional<Map<String, Object>> current = table.selectItem(connection, key);
                // This attempt's own earlier write, with its audit entry: a retry, not a second use.
                return current.filter(ownWrite).isPresent() ? new Outcome.Written() : new Outcome.Refused(current);
            }
            then.run(connection);
            writeEntry(table, connection, auditItem, entryWhat);
            if (place.isPresent()) {
                counters.givePlaceBack(connection, place.get());
            }
            return new Outcome.Written();
        });
    }

    /** Inserts the audit entry a write carries; a taken key rolls the whole transaction back. */
    static void writeEntry(SqliteTable table, Connection connection, Map<String, Object> auditItem, String what)
            throws SQLException {
        if (table.insertIfAbsent(connection, auditItem) != 1) {
            throw new StoreException("the audit key " + TableItems.string(auditItem, ItemAttributes.SK) + " of this "
                    + what + " is taken; nothing was written, retry");
        }
    }
}

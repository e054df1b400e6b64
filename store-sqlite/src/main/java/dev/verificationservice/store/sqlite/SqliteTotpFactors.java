package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.ACCEPTED_BY;
import static dev.verificationservice.table.ItemAttributes.CONFIRMED;
import static dev.verificationservice.table.ItemAttributes.LAST_ACCEPTED_STEP;
import static dev.verificationservice.table.ItemAttributes.LAST_USED_AT;
import static dev.verificationservice.table.ItemAttributes.SECRET_CIPHERTEXT;
import static dev.verificationservice.table.ItemAttributes.SECRET_KEY_ID;
import static dev.verificationservice.table.ItemAttributes.SECRET_NONCE;
import static dev.verificationservice.table.ItemAttributes.TTL;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import dev.verificationservice.table.TotpItems;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpRepository;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Authenticator-app factors in the SQLite table: rows {@code USER#<userId>} / {@code TOTP#<factorId>}.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>insert a factor: in one transaction, the user's factors read and those not expired counted (the cap), then
 *   the factor's and the {@code TOTP_ENROLLED} entry's {@code INSERT ... ON CONFLICT DO NOTHING}, rolled back (a
 *   StoreException) unless both wrote a row;</li>
 *   <li>accept a step (the replay rule): one attempt's write ({@link SqliteAttempts}, which has the algorithm) of
 *   {@link #ACCEPT_STEP}, whose {@code WHERE} is the condition {@code confirmed = true AND lastAcceptedStep < :step},
 *   stamped in {@code acceptedBy}, with the {@code TOTP_VERIFIED} entry and the give-back; Refused with the factor
 *   as it is (gone, pending, or at this step or later);</li>
 *   <li>confirm a factor: the same, with {@link #CONFIRM_FACTOR}: {@code confirmed = false AND ttl > :now}, which
 *   sets {@code confirmed}, the confirming code's step and removes the ttl;</li>
 *   <li>find a user's factors, and delete them: one statement on the user's partition
 *   ({@code sk} prefix {@code TOTP#}); one factor by its key. Reads hand back expired pending factors too: the
 *   domain compares their ttl with its clock.</li>
 * </ul>
 * Both conditional updates replace the sealed secret when the acceptance carries a re-sealed one (rotation on use),
 * and keep it otherwise ({@code coalesce} with the stored attribute).
 */
final class SqliteTotpFactors implements TotpRepository {

    /** The sealed secret's attributes, each replaced by the bound value when one is given (re-sealed). */
    private static final String RESEAL = ", '$." + SECRET_KEY_ID + "', coalesce(?, json_extract(item, '$." + SECRET_KEY_ID
            + "')), '$." + SECRET_NONCE + "', coalesce(?, json_extract(item, '$." + SECRET_NONCE + "')), '$."
            + SECRET_CIPHERTEXT + "', coalesce(?, json_extract(item, '$." + SECRET_CIPHERTEXT + "'))";

    /** attribute_exists(PK) AND confirmed = true AND lastAcceptedStep < :step. */
    private static final String ACCEPT_STEP = "UPDATE items SET item = json_set(item, '$." + LAST_ACCEPTED_STEP + "', ?,"
            + " '$." + ACCEPTED_BY + "', ?, '$." + LAST_USED_AT + "', ?" + RESEAL + ")"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + CONFIRMED + "') = 1"
            + " AND json_extract(item, '$." + LAST_ACCEPTED_STEP + "') < ?";

    /** attribute_exists(PK) AND confirmed = false AND ttl > :now; REMOVE ttl. */
    private static final String CONFIRM_FACTOR = "UPDATE items SET ttl = NULL, item = json_remove(json_set(item,"
            + " '$." + CONFIRMED + "', json('true'), '$." + LAST_ACCEPTED_STEP + "', ?, '$." + ACCEPTED_BY + "', ?"
            + RESEAL + "), '$." + TTL + "')"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + CONFIRMED + "') = 0 AND ttl > ?";

    private final SqliteTable table;
    private final SqliteAttempts attempts;

    SqliteTotpFactors(SqliteTable table, SqliteCounters counters) {
        this.table = table;
        this.attempts = new SqliteAttempts(table, counters);
    }

    @Override
    public boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors) {
        Map<String, Object> factorItem = TotpItems.totpFactorItem(factor);
        Map<String, Object> auditItem = table.auditItem(enrolled);
        return table.inTransaction("enrol an authenticator factor", connection -> {
            // Counted in the writer's transaction (BEGIN IMMEDIATE holds the file's write lock, so another store
            // instance on the file waits too): a count read on a pool connection would race the insert.
            List<TotpFactor> stored = table.selectByKeyPrefix(connection, TableKeys.user(factor.userId()),
                    TableKeys.totpFactorsPrefix()).stream().map(TotpItems::totpFactor).toList();
            if (stored.stream().filter(existing -> !existing.isExpiredAt(factor.createdAt())).count() >= maxFactors) {
                return false;
            }
            if (table.insertIfAbsent(connection, factorItem) != 1) {
                throw new StoreException("factor enrolment refused: factor " + factor.factorId()
                        + " of this user exists already; nothing was written");
            }
            SqliteAttempts.writeEntry(table, connection, auditItem, "enrolment");
            return true;
        });
    }

    @Override
    public List<TotpFactor> findFactors(String userId) {
        try (Connection connection = table.readConnection()) {
            return table.selectByKeyPrefix(connection, TableKeys.user(userId), TableKeys.totpFactorsPrefix()).stream()
                    .map(TotpItems::totpFactor).toList();
        } catch (SQLException e) {
            throw SqliteTable.failure("read a user's authenticator factors", e);
        }
    }

    @Override
    public Optional<TotpFactor> findFactor(String userId, String factorId) {
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, TableKeys.totpFactor(userId, factorId)).map(TotpItems::totpFactor);
        } catch (SQLException e) {
            throw SqliteTable.failure("read an authenticator factor", e);
        }
    }

    @Override
    public StepOutcome confirmFactor(StepAcceptance confirmation) {
        return conditionalStep("confirm an authenticator factor", confirmation, CONFIRM_FACTOR, (update, key) -> {
            int index = 1;
            update.setLong(index++, confirmation.step());
            update.setString(index++, confirmation.attemptId());
            index = bindReseal(update, index, confirmation.resealed());
            update.setString(index++, key.pk());
            update.setString(index++, key.sk());
            update.setLong(index, confirmation.now().getEpochSecond());
        });
    }

    @Override
    public StepOutcome acceptStep(StepAcceptance acceptance) {
        return conditionalStep("accept a TOTP time step", acceptance, ACCEPT_STEP, (update, key) -> {
            int index = 1;
            update.setLong(index++, acceptance.step());
            update.setString(index++, acceptance.attemptId());
            update.setString(index++, Timestamps.format(acceptance.now()));
            index = bindReseal(update, index, acceptance.resealed());
            update.setString(index++, key.pk());
            update.setString(index++, key.sk());
            update.setLong(index, acceptance.step());
        });
    }

    /** One attempt's write ({@link SqliteAttempts}) of the step, stamped in {@code acceptedBy}. */
    private StepOutcome conditionalStep(String what, StepAcceptance write, String statement,
                                       SqliteAttempts.Binding binding) {
        TableKeys.PrimaryKey key = TableKeys.totpFactor(write.userId(), write.factorId());
        return attempts.write(what, what, key, statement, binding,
                current -> TotpItems.acceptedBy(current).filter(write.attemptId()::equals).isPresent(),
                write.entry(), write.placeToGiveBack()).answer(StepOutcome.Accepted::new,
                current -> new StepOutcome.Refused(current.map(TotpItems::totpFactor)));
    }

    private static int bindReseal(PreparedStatement update, int first, Optional<SealedSecret> resealed)
            throws SQLException {
        int index = first;
        update.setString(index++, resealed.map(SealedSecret::keyId).orElse(null));
        update.setString(index++, resealed.map(SealedSecret::nonce).orElse(null));
        update.setString(index++, resealed.map(SealedSecret::ciphertext).orElse(null));
        return index;
    }

    @Override
    public List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        return table.inTransaction("delete authenticator factors", connection -> {
            if (factorId.isEmpty()) {
                return table.deleteByKeyPrefix(connection, TableKeys.user(userId), TableKeys.totpFactorsPrefix())
                        .stream().map(TotpItems::totpFactor).toList();
            }
            TableKeys.PrimaryKey key = TableKeys.totpFactor(userId, factorId.get());
            Optional<TotpFactor> found = table.selectItem(connection, key).map(TotpItems::totpFactor);
            table.deleteItem(connection, key);
            return found.stream().toList();
        });
    }
}

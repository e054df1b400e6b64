package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.IS_USED;
import static dev.verificationservice.table.ItemAttributes.SET_ID;
import static dev.verificationservice.table.ItemAttributes.USED_AT;
import static dev.verificationservice.table.ItemAttributes.USED_BY;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.RecoveryCodeItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Recovery codes in the SQLite table: rows {@code USER#<userId>} / {@code RECOVERY#<digest>}, the code only as its
 * HMAC digest.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>replace a set: in one transaction, the user's set marker ({@code RECOVERYSET}) read: naming neither the set
 *   read before ({@code none} when there was none) nor the new one, another replacement came first: refused, nothing
 *   written. Else the voided codes deleted by key, the issued ones inserted ({@code ON CONFLICT DO NOTHING}: a retry
 *   finds its own items there), the marker set to the new set and the {@code RECOVERY_CODES_ISSUED} entry inserted
 *   (a taken key holding this very entry is a retry; another entry's rolls everything back). The writer's
 *   {@code BEGIN IMMEDIATE} holds the file's write lock, so another store instance on the file waits for it;</li>
 *   <li>use a code: one attempt's write ({@link SqliteAttempts}, which has the algorithm) of {@link #USE_CODE},
 *   whose {@code WHERE} is the condition {@code isUsed = false AND setId = :setId}, stamped in {@code usedBy}, with
 *   the {@code RECOVERY_CODE_USED} entry and the give-back; Refused with the code as it is (gone, of another set, or
 *   used);</li>
 *   <li>find and delete a user's codes: one statement on the user's partition ({@code sk} prefix
 *   {@code RECOVERY#}).</li>
 * </ul>
 */
final class SqliteRecoveryCodes implements RecoveryCodeRepository {

    /** attribute_exists(PK) AND isUsed = false AND setId = :setId. */
    private static final String USE_CODE = "UPDATE items SET item = json_set(item, '$." + IS_USED + "', json('true'),"
            + " '$." + USED_AT + "', ?, '$." + USED_BY + "', ?)"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + IS_USED + "') = 0"
            + " AND json_extract(item, '$." + SET_ID + "') = ?";

    private final SqliteTable table;
    private final SqliteAttempts attempts;

    SqliteRecoveryCodes(SqliteTable table, SqliteCounters counters) {
        this.table = table;
        this.attempts = new SqliteAttempts(table, counters);
    }

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, TableKeys.recoverySet(userId)).map(RecoveryCodeItems::recoverySetId);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a user's recovery-code set", e);
        }
    }

    @Override
    public boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        String userId = replacement.userId();
        AuditEntry issuedEntry = replacement.issuedEntry();
        Map<String, Object> auditItem = table.auditItem(issuedEntry);
        return table.inTransaction("replace recovery codes", connection -> {
            Optional<String> current = table.selectItem(connection, TableKeys.recoverySet(userId))
                    .map(RecoveryCodeItems::recoverySetId);
            if (!current.equals(replacement.replaces()) && !current.equals(Optional.of(replacement.setId()))) {
                return false;
            }
            for (RecoveryCode code : replacement.voided()) {
                table.deleteItem(connection, TableKeys.recoveryCode(userId, code.digest()));
            }
            for (RecoveryCode code : replacement.issued()) {
                // Not inserted: the item is there already, written by this very replacement (a retry).
                table.insertIfAbsent(connection, RecoveryCodeItems.recoveryCodeItem(code));
            }
            boolean retried = table.selectItem(connection, TableKeys.auditEntry(issuedEntry.userId(),
                    issuedEntry.timestamp(), issuedEntry.entryId()))
                    .filter(stored -> AuditItems.isSameAuditEntry(stored, issuedEntry)).isPresent();
            if (!retried) {
                SqliteAttempts.writeEntry(table, connection, auditItem, "recovery-code issue");
            }
            table.putItem(connection, RecoveryCodeItems.recoverySetItem(userId, replacement.setId()));
            return true;
        });
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        try (Connection connection = table.readConnection()) {
            return table.selectByKeyPrefix(connection, TableKeys.user(userId), TableKeys.recoveryCodesPrefix())
                    .stream().map(RecoveryCodeItems::recoveryCode).toList();
        } catch (SQLException e) {
            throw SqliteTable.failure("read a user's recovery codes", e);
        }
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        TableKeys.PrimaryKey key = TableKeys.recoveryCode(use.userId(), use.digest());
        return attempts.write("use a recovery code", "recovery-code use", key, USE_CODE,
                (update, item) -> {
                    update.setString(1, Timestamps.format(use.now()));
                    update.setString(2, use.attemptId());
                    update.setString(3, item.pk());
                    update.setString(4, item.sk());
                    update.setString(5, use.setId());
                }, current -> RecoveryCodeItems.usedBy(current).filter(use.attemptId()::equals).isPresent(),
                use.used(), use.placeToGiveBack()).answer(RecoveryUseOutcome.Used::new,
                current -> new RecoveryUseOutcome.Refused(current.map(RecoveryCodeItems::recoveryCode)));
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        return table.inTransaction("delete recovery codes", connection -> table.deleteByKeyPrefix(connection,
                TableKeys.user(userId), TableKeys.recoveryCodesPrefix()).stream().map(RecoveryCodeItems::recoveryCode).toList());
    }
}

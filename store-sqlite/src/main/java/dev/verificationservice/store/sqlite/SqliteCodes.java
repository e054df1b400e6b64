package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.CODE_TYPE;
import static dev.verificationservice.table.ItemAttributes.CONSUMED_BY;
import static dev.verificationservice.table.ItemAttributes.CONTEXT_DIGEST;
import static dev.verificationservice.table.ItemAttributes.IS_USED;
import static dev.verificationservice.table.ItemAttributes.USER_ID;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Verification codes in the SQLite table. Its index never lags, so the table itself says which code is current:
 * no marker item (docs/decisions/0004-one-usable-code-per-user-and-type.md).
 *
 * <p><b>A new code</b> (a send, after admission), in one transaction:
 * <ol>
 *   <li>{@code INSERT ... ON CONFLICT DO NOTHING} ({@code attribute_not_exists(PK)}); one row means written; none
 *   means the key is taken, and the stored item's {@code issuedBy} says whether by this very request (stored, a
 *   retry) or by another code (the caller generates a new one);</li>
 *   <li>keep only the newest code: the user's codes of the type read through GSI1 and those the new one replaces
 *   ({@link VerificationCode#replacedBy}, itself when a newer one is stored) deleted by key.</li>
 * </ol>
 *
 * <p><b>Consume a code</b>: one attempt's write ({@link SqliteAttempts}, which has the algorithm) of
 * {@link #CONSUME_CODE}, {@code SET isUsed = true, consumedBy = :attempt WHERE isUsed = false AND ttl > :now AND
 * userId AND codeType match}, with the {@code CODE_VERIFIED} entry and the give-back. Refused is rejected, and the
 * item as it is says why.
 *
 * <p><b>Besides</b>: delete the codes of one format (the lock-out): in one transaction, the user's codes of the
 * type read through GSI1 and those of the format deleted by key; find and delete all of a user's codes of a type:
 * one statement on GSI1 ({@code gsi1sk} prefix range).
 */
final class SqliteCodes implements CodeRepository {

    /** attribute_exists(PK) AND isUsed = false AND ttl > :now AND userId = :userId AND codeType = :codeType. */
    private static final String CONSUME_CODE = "UPDATE items SET item = json_set(item, '$." + IS_USED + "', json('true'),"
            + " '$." + CONSUMED_BY + "', ?)"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + IS_USED + "') = 0 AND ttl > ?"
            + " AND json_extract(item, '$." + USER_ID + "') = ? AND json_extract(item, '$." + CODE_TYPE + "') = ?"
            + " AND json_extract(item, '$." + CONTEXT_DIGEST + "') IS ?";

    private final SqliteTable table;
    private final SqliteAttempts attempts;

    SqliteCodes(SqliteTable table, SqliteCounters counters) {
        this.table = table;
        this.attempts = new SqliteAttempts(table, counters);
    }

    @Override
    public CodePlacement placeCode(VerificationCode code, String issueId) {
        Map<String, Object> item = CodeItems.codeItem(code, issueId);
        return table.inTransaction("write a code", connection -> {
            // The key is taken: by this very write (a retry, which goes on to make sure the code is current) or
            // by another code, which the caller replaces.
            if (table.insertIfAbsent(connection, item) == 0 && table.selectItem(connection, TableKeys.code(code.digest()))
                    .flatMap(CodeItems::issuedBy).filter(issueId::equals).isEmpty()) {
                return new CodePlacement.KeyTaken();
            }
            List<VerificationCode> deleted = VerificationCode.replacedBy(code,
                    codesOfType(connection, code.userId(), code.codeType()));
            deleteCodes(connection, deleted);
            return new CodePlacement.Placed(deleted);
        });
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        TableKeys.PrimaryKey key = TableKeys.code(digest);
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, key).map(CodeItems::code);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a code", e);
        }
    }

    @Override
    public Optional<VerificationCode> findCurrentCode(String userId, CodeType codeType, String digest) {
        // The index never lags and replaced codes are deleted in the write that replaces them: a code still stored
        // is its user's current code of its type.
        return findCode(digest).filter(code -> code.userId().equals(userId) && code.codeType() == codeType);
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        TableKeys.PrimaryKey key = TableKeys.code(consumption.digest());
        return attempts.write("consume a code", "verification", key, CONSUME_CODE,
                (update, item) -> {
                    update.setString(1, consumption.attemptId());
                    update.setString(2, item.pk());
                    update.setString(3, item.sk());
                    update.setLong(4, consumption.now().getEpochSecond());
                    update.setString(5, consumption.userId());
                    update.setString(6, consumption.codeType().name());
                    // IS compares NULL with NULL as equal: both without a context, or the same context's HMAC.
                    update.setString(7, consumption.contextDigest().orElse(null));
                }, current -> CodeItems.consumedBy(current).filter(consumption.attemptId()::equals).isPresent(),
                consumption.verified(), consumption.placeToGiveBack()).answer(ConsumeOutcome.Consumed::new,
                current -> new ConsumeOutcome.Rejected(current.map(CodeItems::code)));
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        if (format.isEmpty()) {
            return table.deleteByIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType)).stream()
                    .map(CodeItems::code).toList();
        }
        return table.inTransaction("delete codes of one format", connection -> {
            List<VerificationCode> deleted = codesOfType(connection, userId, codeType).stream()
                    .filter(code -> code.format() == format.get()).toList();
            deleteCodes(connection, deleted);
            return deleted;
        });
    }

    private List<VerificationCode> codesOfType(Connection connection, String userId, CodeType codeType)
            throws SQLException {
        return table.selectByIndexPrefix(connection, TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType),
                Optional.empty()).stream().map(CodeItems::code).toList();
    }

    private static void deleteCodes(Connection connection, List<VerificationCode> doomed) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(SqliteTable.DELETE_ITEM)) {
            for (VerificationCode code : doomed) {
                TableKeys.PrimaryKey key = TableKeys.code(code.digest());
                delete.setString(1, key.pk());
                delete.setString(2, key.sk());
                delete.executeUpdate();
            }
        }
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return table.selectByIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType),
                        Optional.empty())
                .stream().map(CodeItems::code).toList();
    }

    @Override
    public void deleteCode(VerificationCode code) {
        table.deleteItem(TableKeys.code(code.digest()));
    }
}

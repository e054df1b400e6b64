package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.BACKED_UP;
import static dev.verificationservice.table.ItemAttributes.CONSUMED_BY;
import static dev.verificationservice.table.ItemAttributes.LABEL;
import static dev.verificationservice.table.ItemAttributes.LAST_USED_AT;
import static dev.verificationservice.table.ItemAttributes.SIGN_COUNT;
import static dev.verificationservice.table.ItemAttributes.USER_ID;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyUse;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.PasskeyItems;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Passkeys in the SQLite table: rows {@code PASSKEYCHALLENGE#<challenge>}, {@code USER#<userId>} /
 * {@code PASSKEYUSER} (the handle and the credential ids) and {@code PASSKEY#<credentialId>}.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>register: in one transaction, the challenge read (stamped with this attempt: a retry, STORED), open at
 *   {@code now}, the credential id free, the user's ids below the cap; then the challenge stamped, the passkey
 *   inserted, the user's row given the id, and the {@code PASSKEY_ADDED} entry inserted;</li>
 *   <li>accept an assertion: one attempt's write ({@link SqliteAttempts}) of {@link #CONSUME}, whose {@code WHERE}
 *   is the condition (challenge unstamped, {@code ttl > :now}, the passkey the user's at the tested sign count),
 *   stamped in {@code consumedBy}; then the passkey's count and {@code lastUsedAt} in the same transaction;</li>
 *   <li>user handle: the row's, or the candidate inserted now.</li>
 * </ul>
 */
final class SqlitePasskeys implements PasskeyRepository {

    /** attribute_not_exists(consumedBy) AND ttl > :now, with the passkey still at the count the assertion was tested at. */
    private static final String CONSUME = "UPDATE items SET item = json_set(item, '$." + CONSUMED_BY + "', ?)"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + CONSUMED_BY + "') IS NULL AND ttl > ?"
            + " AND EXISTS (SELECT 1 FROM items passkey WHERE passkey.pk = ? AND passkey.sk = ?"
            + " AND json_extract(passkey.item, '$." + USER_ID + "') = ?"
            + " AND json_extract(passkey.item, '$." + SIGN_COUNT + "') = ?)";
    private static final String USE = "UPDATE items SET item = json_set(item, '$." + SIGN_COUNT + "', ?, '$."
            + BACKED_UP + "', json(?), '$." + LAST_USED_AT + "', ?) WHERE pk = ? AND sk = ?";
    private static final String RENAME = "UPDATE items SET item = json_set(item, '$." + LABEL + "', ?)"
            + " WHERE pk = ? AND sk = ? AND json_extract(item, '$." + USER_ID + "') = ?";

    private final SqliteTable table;
    private final SqliteAttempts attempts;

    SqlitePasskeys(SqliteTable table, SqliteCounters counters) {
        this.table = table;
        this.attempts = new SqliteAttempts(table, counters);
    }

    @Override
    public void insertChallenge(PasskeyChallenge challenge) {
        Map<String, Object> item = PasskeyItems.challengeItem(challenge);
        table.inTransaction("store a passkey challenge", connection -> {
            if (table.insertIfAbsent(connection, item) != 1) {
                throw new StoreException("passkey challenge refused: its key exists already; nothing was written");
            }
            return null;
        });
    }

    @Override
    public Optional<PasskeyChallenge> findChallenge(String challenge) {
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, TableKeys.passkeyChallenge(challenge)).map(PasskeyItems::challenge);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a passkey challenge", e);
        }
    }

    @Override
    public String userHandle(String userId, String candidate) {
        return table.inTransaction("store a passkey user handle", connection -> {
            Optional<Map<String, Object>> stored = table.selectItem(connection, TableKeys.passkeyUser(userId));
            if (stored.isPresent()) {
                return PasskeyItems.userHandle(stored.get());
            }
            table.insertIfAbsent(connection, PasskeyItems.userItem(userId, candidate, List.of()));
            return candidate;
        });
    }

    @Override
    public List<Passkey> findPasskeys(String userId) {
        try (Connection connection = table.readConnection()) {
            return passkeys(connection, userId);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a user's passkeys", e);
        }
    }

    private List<Passkey> passkeys(Connection connection, String userId) throws SQLException {
        Optional<Map<String, Object>> user = table.selectItem(connection, TableKeys.passkeyUser(userId));
        List<Passkey> found = new ArrayList<>();
        for (String id : user.map(PasskeyItems::credentialIds).orElse(List.of())) {
            table.selectItem(connection, TableKeys.passkey(id)).map(PasskeyItems::passkey)
                    .filter(passkey -> passkey.userId().equals(userId)).ifPresent(found::add);
        }
        found.sort(Comparator.comparing(Passkey::credentialId));
        return found;
    }

    @Override
    public Optional<Passkey> findPasskey(String credentialId) {
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, TableKeys.passkey(credentialId)).map(PasskeyItems::passkey);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a passkey", e);
        }
    }

    @Override
    public Registered register(String challenge, String attemptId, Instant now, Passkey passkey, AuditEntry added,
                               int maxPasskeys) {
        Map<String, Object> auditItem = table.auditItem(added);
        return table.inTransaction("register a passkey", connection -> {
            Optional<PasskeyChallenge> stored = table.selectItem(connection, TableKeys.passkeyChallenge(challenge))
                    .map(PasskeyItems::challenge);
            if (stored.isPresent() && stored.get().consumedBy().equals(Optional.of(attemptId))) {
                return Registered.STORED;
            }
            if (stored.isEmpty() || !stored.get().isOpenAt(now) || !stored.get().isRegistrationOf(passkey.userId())) {
                return Registered.CHALLENGE_NOT_OPEN;
            }
            if (table.selectItem(connection, TableKeys.passkey(passkey.credentialId())).isPresent()) {
                return Registered.CREDENTIAL_EXISTS;
            }
            Optional<Map<String, Object>> user = table.selectItem(connection,
                    TableKeys.passkeyUser(passkey.userId()));
            List<String> ids = new ArrayList<>(user.map(PasskeyItems::credentialIds).orElse(List.of()));
            if (ids.size() >= maxPasskeys) {
                return Registered.CAP_REACHED;
            }
            ids.add(passkey.credentialId());
            table.putItem(connection, PasskeyItems.challengeItem(stored.get().consumed(attemptId)));
            String handle = stored.get().userHandle().orElseThrow();
            table.insertIfAbsent(connection, PasskeyItems.passkeyItem(passkey.withUserHandle(handle)));
            table.putItem(connection, PasskeyItems.userItem(passkey.userId(), user.map(PasskeyItems::userHandle)
                    .orElse(handle), ids));
            SqliteAttempts.writeEntry(table, connection, auditItem, "passkey registration");
            return Registered.STORED;
        });
    }

    @Override
    public boolean acceptAssertion(PasskeyUse use) {
        TableKeys.PrimaryKey challenge = TableKeys.passkeyChallenge(use.challenge());
        TableKeys.PrimaryKey passkey = TableKeys.passkey(use.credentialId());
        return attempts.write("accept a passkey assertion", "passkey assertion", challenge, CONSUME,
                (update, key) -> {
                    int index = 1;
                    update.setString(index++, use.attemptId());
                    update.setString(index++, key.pk());
                    update.setString(index++, key.sk());
                    update.setLong(index++, use.now().getEpochSecond());
                    update.setString(index++, passkey.pk());
                    update.setString(index++, passkey.sk());
                    update.setString(index++, use.userId());
                    update.setLong(index, use.expectedSignCount());
                },
                current -> TableItems.optionalString(current, CONSUMED_BY).filter(use.attemptId()::equals)
                        .isPresent(),
                use.entry(), use.placeToGiveBack(), connection -> {
                    try (PreparedStatement update = connection.prepareStatement(USE)) {
                        update.setLong(1, use.newSignCount());
                        update.setString(2, Boolean.toString(use.backedUp()));
                        update.setString(3, Timestamps.format(use.now()));
                        update.setString(4, passkey.pk());
                        update.setString(5, passkey.sk());
                        update.executeUpdate();
                    }
                }).answer(() -> true, ignored -> false);
    }

    @Override
    public boolean rename(String userId, String credentialId, String label) {
        TableKeys.PrimaryKey key = TableKeys.passkey(credentialId);
        return table.inTransaction("rename a passkey", connection -> {
            try (PreparedStatement update = connection.prepareStatement(RENAME)) {
                update.setString(1, label);
                update.setString(2, key.pk());
                update.setString(3, key.sk());
                update.setString(4, userId);
                return update.executeUpdate() == 1;
            }
        });
    }

    @Override
    public List<Passkey> delete(String userId, Optional<String> credentialId) {
        return table.inTransaction("revoke passkeys", connection -> {
            List<Passkey> doomed = passkeys(connection, userId).stream()
                    .filter(passkey -> credentialId.map(passkey.credentialId()::equals).orElse(true)).toList();
            if (doomed.isEmpty()) {
                return doomed;
            }
            Optional<Map<String, Object>> user = table.selectItem(connection, TableKeys.passkeyUser(userId));
            List<String> left = new ArrayList<>(user.map(PasskeyItems::credentialIds).orElse(List.of()));
            for (Passkey passkey : doomed) {
                table.deleteItem(connection, TableKeys.passkey(passkey.credentialId()));
                left.remove(passkey.credentialId());
            }
            table.putItem(connection, PasskeyItems.userItem(userId, PasskeyItems.userHandle(user.orElseThrow()), left));
            return doomed;
        });
    }
}

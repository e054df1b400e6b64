package dev.verificationservice.store.sqlite;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The audit log in the SQLite table.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>append an entry: {@code INSERT ... ON CONFLICT DO NOTHING} ({@code attribute_not_exists(PK)}); a taken
 *   key holding this very entry counts as written (a retry), another entry's means the caller picks a new id;</li>
 *   <li>query a user's entries: one range statement on the user's partition, newest first, from a position
 *   onwards when paging ({@link #SELECT_AUDIT_RANGE_BEFORE}), filtering {@code ttl > :now} itself.</li>
 * </ul>
 */
final class SqliteAudit implements AuditRepository {

    private static final String SELECT_AUDIT_RANGE = "SELECT item FROM items WHERE pk = ? AND sk BETWEEN ? AND ?"
            + " AND (ttl IS NULL OR ttl > ?) ORDER BY sk DESC LIMIT ?";
    private static final String SELECT_AUDIT_RANGE_BEFORE = "SELECT item FROM items WHERE pk = ? AND sk BETWEEN ? AND ?"
            + " AND sk < ? AND (ttl IS NULL OR ttl > ?) ORDER BY sk DESC LIMIT ?";

    private final SqliteTable table;

    SqliteAudit(SqliteTable table) {
        this.table = table;
    }

    @Override
    public boolean appendAudit(AuditEntry entry) {
        Map<String, Object> item = table.auditItem(entry);
        return table.inTransaction("append an audit entry", connection -> {
            if (table.insertIfAbsent(connection, item) == 1) {
                return true;
            }
            // Taken by this very entry (a retry) counts as written; by another entry, the caller picks a new id.
            return table.selectItem(connection,
                            TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId()))
                    .filter(stored -> AuditItems.isSameAuditEntry(stored, entry)).isPresent();
        });
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                      int limit, Instant now) {
        try (Connection connection = table.readConnection();
             PreparedStatement select = connection.prepareStatement(
                     before.isPresent() ? SELECT_AUDIT_RANGE_BEFORE : SELECT_AUDIT_RANGE)) {
            int index = 1;
            select.setString(index++, TableKeys.user(userId));
            select.setString(index++, TableKeys.auditRangeStart(from));
            select.setString(index++, TableKeys.auditRangeEnd(to));
            if (before.isPresent()) {
                select.setString(index++, TableKeys.auditSortKey(before.get().timestamp(), before.get().entryId()));
            }
            select.setLong(index++, now.getEpochSecond());
            select.setInt(index, limit);
            return table.allItems(select).stream().map(AuditItems::audit).toList();
        } catch (SQLException e) {
            throw SqliteTable.failure("query the audit log", e);
        }
    }
}

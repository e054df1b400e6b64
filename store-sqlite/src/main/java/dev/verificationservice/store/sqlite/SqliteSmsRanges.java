package dev.verificationservice.store.sqlite;

import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsRangeRepository;
import dev.verificationservice.table.SmsRangeItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The operators' registry of number ranges in the SQLite table: a mark is one row put over its key (a retry writes
 * the same row), a list is the rows of one partition, filtered by their ttl here as on DynamoDB.
 */
final class SqliteSmsRanges implements SmsRangeRepository {

    private final SqliteTable table;

    SqliteSmsRanges(SqliteTable table) {
        this.table = table;
    }

    @Override
    public void putMark(SmsRangeMark mark) {
        table.inTransaction("write a number range's mark", connection -> {
            table.putItem(connection, SmsRangeItems.markItem(mark));
            return null;
        });
    }

    @Override
    public List<SmsRangeMark> findMarks(SmsRangeMark.Kind kind, Instant window, Instant now, int limit) {
        try (Connection connection = table.readConnection()) {
            return table.selectByKeyPrefix(connection, TableKeys.smsRangeMarksPartition(kind, window),
                            TableKeys.smsRangeMarksPrefix(kind)).stream()
                    .map(SmsRangeItems::mark).filter(mark -> mark.liveAt(now)).limit(limit).toList();
        } catch (SQLException e) {
            throw SqliteTable.failure("read the number ranges' marks", e);
        }
    }

    @Override
    public boolean deleteMark(SmsRangeMark.Kind kind, Instant window, String key) {
        return table.inTransaction("delete a number range's mark",
                connection -> table.deleteItem(connection, TableKeys.smsRangeMark(kind, window, key)) == 1);
    }
}

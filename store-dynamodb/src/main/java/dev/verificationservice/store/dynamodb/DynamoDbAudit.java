package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * The audit log on DynamoDB: entries in the user's partition, sorted by time.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>new audit entry: PutItem with {@value DynamoDbTable#KEY_IS_NEW}; a failed condition on an item equal to
 *   this entry is this entry's own retry (written); otherwise the domain picks another entry id;</li>
 *   <li>query: Query the user's partition on {@value #AUDIT_RANGE}, newest first, filtered {@value #RETAINED}
 *   because TTL deletes late; the filter runs after Limit, so pages are followed until enough entries came.</li>
 * </ul>
 */
final class DynamoDbAudit implements AuditRepository {

    static final String AUDIT_RANGE = "PK = :pk AND SK BETWEEN :from AND :to";
    static final String RETAINED = "attribute_not_exists(#ttl) OR #ttl > :now";

    private final DynamoDbTable table;

    DynamoDbAudit(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public boolean appendAudit(AuditEntry entry) {
        Optional<Map<String, Object>> holder = table.putIfNew(table.auditItem(entry),
                TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId()), AccessPattern.APPEND_AUDIT);
        // Written now, or held by this very entry: a retried put whose first answer was lost.
        return holder.isEmpty() || AuditItems.isSameAuditEntry(holder.get(), entry);
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                      int limit, Instant now) {
        String partition = TableKeys.user(userId);
        QueryRequest.Builder request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression(AUDIT_RANGE)
                .filterExpression(RETAINED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(
                        ":pk", s(partition),
                        ":from", s(TableKeys.auditRangeStart(from)),
                        ":to", s(TableKeys.auditRangeEnd(to)),
                        ":now", n(now.getEpochSecond())))
                .scanIndexForward(false)
                .limit(limit)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        before.ifPresent(position -> request.exclusiveStartKey(Map.of(
                ItemAttributes.PK, s(partition),
                ItemAttributes.SK, s(TableKeys.auditSortKey(position.timestamp(), position.entryId())))));
        List<AuditEntry> entries = new ArrayList<>();
        // The filter runs after Limit, so a page may hold fewer entries than asked: follow pages until enough.
        for (Map<String, AttributeValue> item : table.query(request.build(), AccessPattern.QUERY_AUDIT, limit)) {
            entries.add(AuditItems.audit(DynamoDbItems.fromAttributeValues(item)));
        }
        return entries.size() > limit ? entries.subList(0, limit) : entries;
    }
}

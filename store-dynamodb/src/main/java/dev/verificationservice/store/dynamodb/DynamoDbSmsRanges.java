package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;

import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsRangeRepository;
import dev.verificationservice.table.SmsRangeItems;
import dev.verificationservice.table.TableKeys;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * The operators' registry of number ranges on DynamoDB: a mark is an unconditional PutItem (a retry writes the
 * same item: one write unit), a list is a consistent Query of one partition whose marks are checked against their
 * ttl here (TTL deletes days late), a removal a DeleteItem.
 */
final class DynamoDbSmsRanges implements SmsRangeRepository {

    private final DynamoDbTable table;

    DynamoDbSmsRanges(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public void putMark(SmsRangeMark mark) {
        var response = table.call("write a number range's mark", () -> table.client.putItem(request -> request
                .tableName(table.tableName)
                .item(DynamoDbItems.toAttributeValues(SmsRangeItems.markItem(mark)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        table.capacity.record(AccessPattern.SMS_RANGE_MARKS, WRITE, response.consumedCapacity());
    }

    @Override
    public List<SmsRangeMark> findMarks(SmsRangeMark.Kind kind, Instant window, Instant now, int limit) {
        QueryRequest request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression("PK = :pk AND begins_with(SK, :prefix)")
                .expressionAttributeValues(Map.of(":pk", s(TableKeys.smsRangeMarksPartition(kind, window)),
                        ":prefix", s(TableKeys.smsRangeMarksPrefix(kind))))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.query(request, AccessPattern.SMS_RANGE_MARKS, Integer.MAX_VALUE).stream()
                .map(item -> SmsRangeItems.mark(DynamoDbItems.fromAttributeValues(item)))
                .filter(mark -> mark.liveAt(now)).limit(limit).toList();
    }

    @Override
    public boolean deleteMark(SmsRangeMark.Kind kind, Instant window, String key) {
        var response = table.call("delete a number range's mark", () -> table.client.deleteItem(request -> request
                .tableName(table.tableName)
                .key(DynamoDbTable.keyOf(TableKeys.smsRangeMark(kind, window, key)))
                .returnValues(ReturnValue.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        table.capacity.record(AccessPattern.SMS_RANGE_MARKS, WRITE, response.consumedCapacity());
        return response.hasAttributes() && !response.attributes().isEmpty();
    }
}

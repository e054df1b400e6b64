package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.idempotency.IdempotencyRepository;
import dev.verificationservice.table.IdempotencyItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Idempotency-Keys on DynamoDB: one item per key digest, claimed by one request, then holding its sealed answer.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>claim: PutItem on {@value #IDEMPOTENCY_KEY_IS_FREE} (ALL_OLD on failure: the holder, whose request digest
 *   and answer decide replay, refusal or waiting; a holder gone before it could be read is reported as released,
 *   so the caller's next claim takes the key);</li>
 *   <li>store the answer: UpdateItem {@value #STORE_ANSWER} on {@value #CLAIM_IS_HELD}; a failed condition means
 *   the claim was taken over as stale meanwhile;</li>
 *   <li>release: DeleteItem on {@value #CLAIM_IS_PENDING}; a failed condition means there is nothing of this
 *   claim's to release;</li>
 *   <li>find: a consistent GetItem, live only while its ttl is after {@code now}.</li>
 * </ul>
 */
final class DynamoDbIdempotency implements IdempotencyRepository {

    /** Free: no item; an expired one; this very claim (a retry); or a claim pending since before :staleBefore. */
    // This very claim again is free only while it is pending: a late retry must not put it over the stored answer.
    static final String IDEMPOTENCY_KEY_IS_FREE = "attribute_not_exists(PK) OR #ttl <= :now"
            + " OR (attribute_not_exists(#answer) AND (#claimedBy = :claimedBy OR #claimedAt < :staleBefore))";
    static final String STORE_ANSWER = "SET #answerStatus = :answerStatus, #answer = :answer";
    static final String CLAIM_IS_HELD = "#claimedBy = :claimedBy";
    static final String CLAIM_IS_PENDING = "#claimedBy = :claimedBy AND attribute_not_exists(#answer)";

    private final DynamoDbTable table;

    DynamoDbIdempotency(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(pending.keyDigest());
        try {
            table.capacity.record(AccessPattern.IDEMPOTENCY, WRITE, table.client.putItem(request -> request
                    .tableName(table.tableName)
                    .item(DynamoDbItems.toAttributeValues(IdempotencyItems.idempotencyItem(pending)))
                    .conditionExpression(IDEMPOTENCY_KEY_IS_FREE)
                    .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY,
                            "#claimedAt", ItemAttributes.CLAIMED_AT, "#answer", ItemAttributes.ANSWER,
                            "#ttl", ItemAttributes.TTL))
                    .expressionAttributeValues(Map.of(":claimedBy", s(pending.claimedBy()),
                            ":staleBefore", s(IdempotencyItems.claimedAtText(staleBefore)),
                            ":now", n(pending.claimedAt().getEpochSecond())))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
            return Optional.empty();
        } catch (ConditionalCheckFailedException e) {
            table.capacity.recordFailedWrite(AccessPattern.IDEMPOTENCY, 1);
            Optional<Map<String, Object>> holder = e.hasItem() && !e.item().isEmpty()
                    ? Optional.of(DynamoDbItems.fromAttributeValues(e.item()))
                    : table.getItem(key, AccessPattern.IDEMPOTENCY);
            // Gone between the write and the read (released): not held; the caller's next claim takes it.
            return Optional.of(holder.map(IdempotencyItems::idempotency).orElse(new IdempotencyRecord(pending.keyDigest(),
                    pending.requestDigest(), "released", pending.claimedAt(), Optional.empty(), pending.expiresAt())));
        } catch (SdkException e) {
            throw table.failure("claim an Idempotency-Key", e);
        }
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(TableKeys.idempotencyKey(keyDigest)))
                .updateExpression(STORE_ANSWER)
                .conditionExpression(CLAIM_IS_HELD)
                .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY,
                        "#answerStatus", ItemAttributes.ANSWER_STATUS, "#answer", ItemAttributes.ANSWER))
                .expressionAttributeValues(Map.of(":claimedBy", s(claimedBy), ":answerStatus", n(answer.status()),
                        ":answer", s(answer.sealedBody())))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        // A failed condition: taken over as stale meanwhile: the answer is not this key's any more.
        table.updateUnlessConditionFails(request, AccessPattern.IDEMPOTENCY, "store an idempotent answer");
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        try {
            table.capacity.record(AccessPattern.IDEMPOTENCY, WRITE, table.client.deleteItem(request -> request
                    .tableName(table.tableName)
                    .key(keyOf(TableKeys.idempotencyKey(keyDigest)))
                    .conditionExpression(CLAIM_IS_PENDING)
                    .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY,
                            "#answer", ItemAttributes.ANSWER))
                    .expressionAttributeValues(Map.of(":claimedBy", s(claimedBy)))
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
        } catch (ConditionalCheckFailedException e) {
            table.capacity.recordFailedWrite(AccessPattern.IDEMPOTENCY, 1);
        } catch (SdkException e) {
            throw table.failure("release an Idempotency-Key", e);
        }
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        return table.getItem(TableKeys.idempotencyKey(keyDigest), AccessPattern.IDEMPOTENCY)
                .filter(item -> TableItems.number(item, ItemAttributes.TTL) > now.getEpochSecond())
                .map(IdempotencyItems::idempotency);
    }
}

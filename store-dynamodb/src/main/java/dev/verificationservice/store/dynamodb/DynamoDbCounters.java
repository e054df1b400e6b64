package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.NOT_EXPIRED;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.boundAsValues;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.RateLimitItems;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Rate limits and cooldowns on DynamoDB: one counter item per user, action and window, and one cooldown item per
 * user and action.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>take a rate-limit place: UpdateItem {@value #TAKE_PLACE} on {@value #BELOW_CEILING}, returning
 *   {@code UPDATED_NEW}. DynamoDB serialises updates of one item, so every attempt gets a distinct place; the
 *   item holds no mark of it, so it stays small at any count. A failed condition means the counter is at the
 *   ceiling: refused, nothing counted. The SDK's retry of a write whose answer was lost counts once more (the
 *   safe direction: a refusal too early, never an excess);</li>
 *   <li>give a place back: UpdateItem {@value #GIVE_PLACE_BACK} on {@value #NOT_GIVEN_BACK}: the attempt's id goes
 *   into one of {@value Place#GIVE_BACK_SLOTS} slots picked by the id, and a failed condition means this
 *   give-back is the slot's last already (a retry), or there is nothing to give back (the counter was reset);</li>
 *   <li>claim a cooldown: UpdateItem {@value #CLAIM_COOLDOWN} on {@value #COOLDOWN_IS_FREE}; a failed
 *   condition's old item says when the running cooldown ends. Release it (its request was refused after the
 *   claim): DeleteItem on {@value #COOLDOWN_IS_CLAIMED_BY_ME}; a failed condition means released already or
 *   claimed by another attempt since;</li>
 *   <li>read counters: consistent Query on {@value #COUNTER_WINDOW} or {@value #COUNTER_RANGE}, filtered
 *   {@value DynamoDbTable#NOT_EXPIRED} because TTL deletes late;</li>
 *   <li>lift a rate limit: consistent Query on {@value #COUNTER_PARTITION}, then BatchWriteItem deletes.</li>
 * </ul>
 */
final class DynamoDbCounters implements RateLimitRepository {

    static final String TAKE_PLACE = "SET #count = if_not_exists(#count, :zero) + :one,"
            + " #userId = :userId, #action = :action, #windowStart = :windowStart, #ttl = :ttl";
    static final String BELOW_CEILING = "attribute_not_exists(#count) OR #count < :ceiling";
    static final String GIVE_PLACE_BACK = "SET #count = #count - :one, #back = :attemptId";
    static final String NOT_GIVEN_BACK = "#count > :zero AND (attribute_not_exists(#back) OR #back <> :attemptId)";
    static final String CLAIM_COOLDOWN = "SET #busyUntil = :busyUntil, #claimedBy = :attemptId, #userId = :userId,"
            + " #action = :action, #ttl = :ttl";
    static final String COOLDOWN_IS_FREE = "attribute_not_exists(PK) OR #busyUntil <= :now OR #claimedBy = :attemptId";
    static final String COOLDOWN_IS_CLAIMED_BY_ME = "#claimedBy = :attemptId";
    static final String COUNTER_RANGE = "PK = :pk AND SK BETWEEN :from AND :to";
    static final String COUNTER_WINDOW = "PK = :pk AND SK = :sk";
    static final String COUNTER_PARTITION = "PK = :pk";

    private final DynamoDbTable table;

    DynamoDbCounters(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public long takePlace(Place place, long ceiling) {
        CounterWindow window = place.window();
        TableKeys.PrimaryKey key = counterKey(window);
        // The counter's own attributes (userId, action, windowStart, ttl) come from the model, bound as :<name>.
        Map<String, AttributeValue> values = boundAsValues(RateLimitItems.counterAttributes(window.userId(), window.action(),
                window.windowStart(), window.expiresAt()));
        values.put(":zero", n(0));
        values.put(":one", n(1));
        values.put(":ceiling", n(ceiling));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(key))
                .updateExpression(TAKE_PLACE)
                .conditionExpression(BELOW_CEILING)
                .expressionAttributeNames(Map.of(
                        "#count", ItemAttributes.COUNT, "#userId", ItemAttributes.USER_ID,
                        "#action", ItemAttributes.ACTION, "#windowStart", ItemAttributes.WINDOW_START,
                        "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(values)
                .returnValues(ReturnValue.UPDATED_NEW)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        // A failed condition: the counter was at the ceiling, refused, and nothing was counted. Not the count read
        // after it: give-backs since may have lowered it, and a refused take must never pass for a place.
        return table.conditionalUpdate(request, key, AccessPattern.COUNT_RATE_LIMIT,
                updated -> TableItems.number(updated, ItemAttributes.COUNT), current -> ceiling + 1);
    }

    @Override
    public void givePlaceBack(Place place) {
        if (place.attemptId().isEmpty()) {
            return;
        }
        // A failed condition: given back already (a retry), or nothing left to give back (the counter was reset).
        table.updateUnlessConditionFails(UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(counterKey(place.window())))
                .updateExpression(GIVE_PLACE_BACK)
                .conditionExpression(NOT_GIVEN_BACK)
                .expressionAttributeNames(giveBackNames(place))
                .expressionAttributeValues(giveBackValues(place))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build(), AccessPattern.COUNT_RATE_LIMIT, "give back a rate-limit place");
    }

    /**
     * The give-back of {@code place} as an item of a transaction: {@link #GIVE_PLACE_BACK} on {@link #NOT_GIVEN_BACK},
     * so the transaction is cancelled (reason at this item's index) when the place was given back already.
     */
    static TransactWriteItem giveBackItem(DynamoDbTable table, Place place) {
        return TransactWriteItem.builder().update(Update.builder()
                .tableName(table.tableName)
                .key(keyOf(counterKey(place.window())))
                .updateExpression(GIVE_PLACE_BACK)
                .conditionExpression(NOT_GIVEN_BACK)
                .expressionAttributeNames(giveBackNames(place))
                .expressionAttributeValues(giveBackValues(place))
                .build()).build();
    }

    private static Map<String, String> giveBackNames(Place place) {
        return Map.of("#count", ItemAttributes.COUNT,
                "#back", RateLimitItems.giveBackAttribute(place.attemptId().orElseThrow()));
    }

    private static Map<String, AttributeValue> giveBackValues(Place place) {
        return Map.of(":one", n(1), ":zero", n(0), ":attemptId", s(place.attemptId().orElseThrow()));
    }

    static TableKeys.PrimaryKey counterKey(CounterWindow window) {
        return TableKeys.rateLimitWindow(window.userId(), window.action(), window.windowStart());
    }

    @Override
    public int deleteCounters(String userId, String action) {
        QueryRequest request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression(COUNTER_PARTITION)
                .expressionAttributeValues(Map.of(":pk", s(TableKeys.rateLimitPartition(userId, action))))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        List<Map<String, AttributeValue>> items =
                table.query(request, AccessPattern.RESET_RATE_LIMIT, Integer.MAX_VALUE);
        table.deleteAll(items, AccessPattern.RESET_RATE_LIMIT);
        return (int) items.stream().map(DynamoDbItems::fromAttributeValues)
                // The partition's cooldown claim (an SMS breaker's record) holds no count.
                .filter(item -> item.containsKey(ItemAttributes.COUNT)
                        && TableItems.number(item, ItemAttributes.COUNT) > 0).count();
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        QueryRequest request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression(COUNTER_RANGE)
                .filterExpression(NOT_EXPIRED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(
                        ":pk", s(TableKeys.rateLimitPartition(userId, action)),
                        ":from", s(TableKeys.rateLimitWindow(userId, action, fromWindowStart).sk()),
                        ":to", s(TableKeys.rateLimitWindow(userId, action, toWindowStart).sk()),
                        ":now", n(now.getEpochSecond())))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.query(request, AccessPattern.READ_RATE_LIMIT, Integer.MAX_VALUE).stream()
                .map(DynamoDbItems::fromAttributeValues).map(RateLimitItems::counter).toList();
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        Map<String, Object> item = RateLimitItems.cooldownItem(cooldown, cooldown.endsAt().plus(RateLimiter.COUNTER_GRACE));
        Map<String, AttributeValue> values = boundAsValues(item);
        values.put(":now", n(cooldown.now().toEpochMilli()));
        values.put(":attemptId", values.remove(":" + ItemAttributes.CLAIMED_BY));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(key))
                .updateExpression(CLAIM_COOLDOWN)
                .conditionExpression(COOLDOWN_IS_FREE)
                .expressionAttributeNames(Map.of("#busyUntil", ItemAttributes.BUSY_UNTIL,
                        "#claimedBy", ItemAttributes.CLAIMED_BY, "#userId", ItemAttributes.USER_ID,
                        "#action", ItemAttributes.ACTION, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.conditionalUpdate(request, key, AccessPattern.CLAIM_COOLDOWN, updated -> Optional.<Instant>empty(),
                current -> Optional.of(current.map(RateLimitItems::busyUntil).orElse(cooldown.endsAt())));
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        try {
            table.capacity.record(AccessPattern.CLAIM_COOLDOWN, WRITE, table.client.deleteItem(request -> request
                    .tableName(table.tableName)
                    .key(keyOf(TableKeys.cooldown(cooldown.userId(), cooldown.action())))
                    .conditionExpression(COOLDOWN_IS_CLAIMED_BY_ME)
                    .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY))
                    .expressionAttributeValues(Map.of(":attemptId", s(cooldown.attemptId())))
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
        } catch (ConditionalCheckFailedException e) {
            // Released already (a retry), or claimed by another attempt since: nothing of this attempt's is left.
            table.capacity.recordFailedWrite(AccessPattern.CLAIM_COOLDOWN, 1);
        } catch (SdkException e) {
            throw table.failure("release a cooldown", e);
        }
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        QueryRequest request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression(COUNTER_WINDOW)
                .filterExpression(NOT_EXPIRED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(":pk", s(key.pk()), ":sk", s(key.sk()), ":now", n(now.getEpochSecond())))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.query(request, AccessPattern.READ_RATE_LIMIT, Integer.MAX_VALUE).stream().findFirst()
                .map(DynamoDbItems::fromAttributeValues).map(RateLimitItems::counter);
    }
}

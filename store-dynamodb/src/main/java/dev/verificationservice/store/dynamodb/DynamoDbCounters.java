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
import java.util.HashMap;
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
 *   <li>take a rate-limit place: UpdateItem {@value #TAKE_PLACE} on {@value #PLACE_IS_FREE}, returning
 *   {@code UPDATED_NEW}. DynamoDB serialises updates of one item, so every attempt gets a distinct place. A
 *   failed condition whose old item holds this attempt's mark is a retry: that place. One without the mark
 *   means the counter is at the ceiling: refused, nothing counted;</li>
 *   <li>give a place back: UpdateItem {@value #GIVE_PLACE_BACK} on {@value #PLACE_IS_HELD}; a failed condition
 *   means it was given back already (or the counter was reset). Keep a place for good (the SMS budget's, once
 *   the SMS went out): UpdateItem {@value #KEEP_PLACE} on {@value #PLACE_IS_HELD}, so the counter item holds
 *   marks only for places whose outcome is open;</li>
 *   <li>a place without an attempt id (the domain takes none such; the SMS budget's places are named too):
 *   UpdateItem {@value #TAKE_UNNAMED_PLACE} on {@value #BELOW_CEILING}: exact under concurrency, but a retry
 *   may count twice;</li>
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

    /** The count and the attempt's mark get the same new value: the old count plus one (operands read the old item). */
    static final String TAKE_PLACE = "SET #count = if_not_exists(#count, :zero) + :one,"
            + " #place = if_not_exists(#count, :zero) + :one,"
            + " #userId = :userId, #action = :action, #windowStart = :windowStart, #ttl = :ttl";
    static final String PLACE_IS_FREE = "attribute_not_exists(#place) AND (attribute_not_exists(#count) OR #count < :ceiling)";
    /** A place without an attempt id: counted without a mark, so a retry may count twice. */
    static final String TAKE_UNNAMED_PLACE = "SET #count = if_not_exists(#count, :zero) + :one,"
            + " #userId = :userId, #action = :action, #windowStart = :windowStart, #ttl = :ttl";
    static final String BELOW_CEILING = "attribute_not_exists(#count) OR #count < :ceiling";
    static final String GIVE_PLACE_BACK = "SET #count = #count - :one REMOVE #place";
    /** A place kept for good: the count stays, the mark goes (so the item holds marks only for open outcomes). */
    static final String KEEP_PLACE = "REMOVE #place";
    static final String PLACE_IS_HELD = "attribute_exists(#place)";
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
        Map<String, String> names = new HashMap<>(Map.of(
                "#count", ItemAttributes.COUNT, "#userId", ItemAttributes.USER_ID,
                "#action", ItemAttributes.ACTION, "#windowStart", ItemAttributes.WINDOW_START,
                "#ttl", ItemAttributes.TTL));
        place.attemptId().ifPresent(attemptId -> names.put("#place", RateLimitItems.placeAttribute(attemptId)));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(key))
                .updateExpression(place.attemptId().isPresent() ? TAKE_PLACE : TAKE_UNNAMED_PLACE)
                .conditionExpression(place.attemptId().isPresent() ? PLACE_IS_FREE : BELOW_CEILING)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .returnValues(ReturnValue.UPDATED_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.conditionalUpdate(request, key, AccessPattern.COUNT_RATE_LIMIT,
                updated -> TableItems.number(updated, ItemAttributes.COUNT),
                current -> {
                    // The attempt already holds a place (a retry whose first answer was lost): that place.
                    Optional<Long> taken = place.attemptId()
                            .flatMap(attemptId -> current.flatMap(item -> RateLimitItems.place(item, attemptId)));
                    // Otherwise the counter is at the ceiling: refused, and nothing was counted.
                    return taken.orElseGet(() -> current.map(item -> TableItems.number(item, ItemAttributes.COUNT))
                            .orElse(ceiling) + 1);
                });
    }

    @Override
    public void givePlaceBack(Place place) {
        // A failed condition: the mark is gone (given back already, a retry) or the counter was reset.
        updateWhilePlaceIsHeld(place, GIVE_PLACE_BACK, Map.of("#count", ItemAttributes.COUNT), Map.of(":one", n(1)),
                "give back a rate-limit place");
    }

    @Override
    public void keepPlace(Place place) {
        // A failed condition: the mark is gone (kept already, a retry; or given back) or the counter was reset.
        updateWhilePlaceIsHeld(place, KEEP_PLACE, Map.of(), Map.of(), "keep a rate-limit place");
    }

    /** UpdateItem {@code update} on the place's counter, on {@value #PLACE_IS_HELD}; a failed condition is done. */
    private void updateWhilePlaceIsHeld(Place place, String update, Map<String, String> names,
                                        Map<String, AttributeValue> values, String what) {
        if (place.attemptId().isEmpty()) {
            return;
        }
        Map<String, String> allNames = new HashMap<>(names);
        allNames.put("#place", RateLimitItems.placeAttribute(place.attemptId().get()));
        UpdateItemRequest.Builder request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(counterKey(place.window())))
                .updateExpression(update)
                .conditionExpression(PLACE_IS_HELD)
                .expressionAttributeNames(allNames)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        if (!values.isEmpty()) {
            request.expressionAttributeValues(values);
        }
        table.updateUnlessConditionFails(request.build(), AccessPattern.COUNT_RATE_LIMIT, what);
    }

    /**
     * The give-back of {@code place} as an item of a transaction: {@link #GIVE_PLACE_BACK} on {@link #PLACE_IS_HELD},
     * so the transaction is cancelled (reason at this item's index) when the place is gone.
     */
    static TransactWriteItem giveBackItem(DynamoDbTable table, Place place) {
        return TransactWriteItem.builder().update(Update.builder()
                .tableName(table.tableName)
                .key(keyOf(counterKey(place.window())))
                .updateExpression(GIVE_PLACE_BACK)
                .conditionExpression(PLACE_IS_HELD)
                .expressionAttributeNames(Map.of("#count", ItemAttributes.COUNT,
                        "#place", RateLimitItems.placeAttribute(place.attemptId().orElseThrow())))
                .expressionAttributeValues(Map.of(":one", n(1)))
                .build()).build();
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
                .filter(item -> TableItems.number(item, ItemAttributes.COUNT) > 0).count();
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
            table.capacity.record(AccessPattern.CLAIM_COOLDOWN, WRITE, List.of());
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

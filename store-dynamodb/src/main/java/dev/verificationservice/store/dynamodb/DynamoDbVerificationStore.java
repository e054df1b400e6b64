package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.codes.CodeExpectation;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.TouchOutcome;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.spi.StoreException;
import dev.verificationservice.store.VerificationStore;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The single table on Amazon DynamoDB, or any endpoint that speaks its API.
 *
 * <p><b>Algorithm.</b> Every access pattern is one request (or one paginated query followed by batched
 * deletes), and every write that depends on validity carries its condition:
 * <ul>
 *   <li>new code or audit entry: PutItem with {@value #KEY_IS_NEW}; {@code ConditionalCheckFailed} means
 *   the key was taken, and the domain picks another;</li>
 *   <li>consume a code: UpdateItem {@value #MARK_USED} with {@value #CODE_IS_CONSUMABLE} (plus the
 *   expected userId and codeType), {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}: when the condition
 *   fails, DynamoDB hands back the item as it was, and the domain tells USED from EXPIRED without a second
 *   read. An engine that does not return the old item is read once more with a consistent GetItem (see
 *   {@code conditionFailureReturnsItem});</li>
 *   <li>use a device token: UpdateItem {@value #SLIDE_DEVICE} with {@value #TOKEN_IS_ACTIVE}, the same way;</li>
 *   <li>register a device: TransactWriteItems of two conditional puts (the token and its DEVICE_ADDED
 *   entry); a cancellation names each item's reason;</li>
 *   <li>count a rate-limited event: UpdateItem {@value #ADD_DELTA} returning {@code UPDATED_NEW}; DynamoDB
 *   serialises updates of one item, so every caller gets a distinct count;</li>
 *   <li>invalidate codes, revoke devices: Query GSI1 followed to its last page, then BatchWriteItem
 *   deletes in groups of 25, retrying unprocessed items with backoff;</li>
 *   <li>every Query filters {@value #NOT_EXPIRED} (audit: {@value #RETAINED}) because TTL deletes late;
 *   GetItem results are returned as stored and the domain compares their ttl with its clock.</li>
 * </ul>
 * Each request asks for {@code ReturnConsumedCapacity=TOTAL}, added up per {@link AccessPattern} in the
 * {@link ConsumedCapacityRecorder}.
 *
 * <p>GSI1 is eventually consistent, as DynamoDB global indexes are: a code written a moment before an
 * invalidation query may be missed by it. This is the seed design's trade-off; codes still expire.
 */
public final class DynamoDbVerificationStore implements VerificationStore {

    // Expressions: every one the store sends, named once.
    static final String KEY_IS_NEW = "attribute_not_exists(PK)";
    static final String MARK_USED = "SET #isUsed = :true";
    static final String CODE_IS_CONSUMABLE = "attribute_exists(PK) AND #isUsed = :false AND #ttl > :now";
    static final String AND_USER_MATCHES = " AND #userId = :userId";
    static final String AND_CODE_TYPE_MATCHES = " AND #codeType = :codeType";
    static final String SLIDE_DEVICE = "SET #lastActiveAt = :now, #ttl = :newTtl";
    static final String TOKEN_IS_ACTIVE = "attribute_exists(PK) AND #ttl > :nowSeconds";
    static final String ADD_DELTA = "ADD #count :delta SET #userId = :userId, #action = :action,"
            + " #windowStart = :windowStart, #ttl = :ttl";
    static final String GSI1_BEGINS_WITH = "GSI1PK = :pk AND begins_with(GSI1SK, :prefix)";
    static final String AUDIT_RANGE = "PK = :pk AND SK BETWEEN :from AND :to";
    static final String COUNTER_WINDOW = "PK = :pk AND SK = :sk";
    static final String NOT_EXPIRED = "#ttl > :now";
    static final String RETAINED = "attribute_not_exists(#ttl) OR #ttl > :now";

    /** BatchWriteItem takes at most 25 requests. */
    static final int BATCH_WRITE_LIMIT = 25;
    private static final int MAX_BATCH_ATTEMPTS = 8;
    private static final long BASE_BACKOFF_MILLIS = 50;

    private final DynamoDbClient client;
    private final String tableName;
    private final ConsumedCapacityRecorder capacity;
    private final boolean conditionFailureReturnsItem;

    /**
     * @param conditionFailureReturnsItem true for Amazon DynamoDB, which honours
     *        {@code ReturnValuesOnConditionCheckFailure}; false for an engine that does not (dynalite), where a
     *        failed conditional write is followed by one consistent GetItem to learn why it failed
     */
    public DynamoDbVerificationStore(DynamoDbClient client, String tableName, ConsumedCapacityRecorder capacity,
                                     boolean conditionFailureReturnsItem) {
        this.client = client;
        this.tableName = tableName;
        this.capacity = capacity;
        this.conditionFailureReturnsItem = conditionFailureReturnsItem;
    }

    public DynamoDbVerificationStore(DynamoDbClient client, String tableName) {
        this(client, tableName, new ConsumedCapacityRecorder(), true);
    }

    public ConsumedCapacityRecorder consumedCapacity() {
        return capacity;
    }

    // Codes

    @Override
    public boolean insertCode(VerificationCode code) {
        return putIfNew(TableItems.codeItem(code), AccessPattern.INSERT_CODE);
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return getItem(TableKeys.code(digest), AccessPattern.VALIDATE_CODE).map(TableItems::code);
    }

    @Override
    public ConsumeOutcome consumeCode(String digest, CodeExpectation expectation, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.code(digest);
        Map<String, String> names = new HashMap<>(Map.of("#isUsed", ItemAttributes.IS_USED, "#ttl", ItemAttributes.TTL));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":true", bool(true), ":false", bool(false), ":now", n(now.getEpochSecond())));
        StringBuilder condition = new StringBuilder(CODE_IS_CONSUMABLE);
        expectation.userId().ifPresent(userId -> {
            condition.append(AND_USER_MATCHES);
            names.put("#userId", ItemAttributes.USER_ID);
            values.put(":userId", s(userId));
        });
        expectation.codeType().ifPresent(type -> {
            condition.append(AND_CODE_TYPE_MATCHES);
            names.put("#codeType", ItemAttributes.CODE_TYPE);
            values.put(":codeType", s(type.name()));
        });
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(key))
                .updateExpression(MARK_USED)
                .conditionExpression(condition.toString())
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return conditionalUpdate(request, key, AccessPattern.CONSUME_CODE,
                item -> new ConsumeOutcome.Consumed(TableItems.code(item)),
                current -> new ConsumeOutcome.Rejected(current.map(TableItems::code)));
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType) {
        List<Map<String, AttributeValue>> items = queryIndexPrefix(TableKeys.user(userId),
                TableKeys.codesOfTypePrefix(codeType), Optional.empty(), AccessPattern.INVALIDATE_CODES);
        deleteAll(items, AccessPattern.INVALIDATE_CODES);
        return items.stream().map(DynamoDbItems::fromAttributeValues).map(TableItems::code).toList();
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return queryIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType), Optional.empty(),
                AccessPattern.FIND_CODES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::code).toList();
    }

    @Override
    public void deleteCode(String digest) {
        TableKeys.PrimaryKey key = TableKeys.code(digest);
        call("delete a code", () -> capacity.record(AccessPattern.DELETE_CODE, client.deleteItem(request -> request
                .tableName(tableName).key(keyOf(key)).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))
                .consumedCapacity()));
    }

    // Devices

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        TransactWriteItemsRequest request = registerDeviceRequest(token, deviceAdded);
        try {
            capacity.record(AccessPattern.REGISTER_DEVICE, client.transactWriteItems(request).consumedCapacity());
        } catch (TransactionCanceledException e) {
            throw new StoreException("device registration was cancelled and nothing was written: "
                    + describeCancellation(request, e.cancellationReasons()), e);
        } catch (DynamoDbException e) {
            throw new StoreException("device registration failed and nothing was written: "
                    + errorCode(e) + " from DynamoDB TransactWriteItems", e);
        }
    }

    /** The one transaction of a registration: the token and its audit entry, each only if its key is new. */
    TransactWriteItemsRequest registerDeviceRequest(DeviceToken token, AuditEntry deviceAdded) {
        return TransactWriteItemsRequest.builder()
                .transactItems(
                        conditionalPut(TableItems.deviceItem(token)),
                        conditionalPut(TableItems.auditItem(deviceAdded)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                // The SDK may retry after a commit whose answer was lost; the token makes that retry a no-op
                // instead of a condition failure that would report "nothing was written" for a written device.
                .clientRequestToken(deviceAdded.entryId())
                .build();
    }

    @Override
    public TouchOutcome touchDevice(String deviceId, String tokenId, Instant now, Instant newExpiresAt) {
        TableKeys.PrimaryKey key = TableKeys.deviceToken(deviceId, tokenId);
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(key))
                .updateExpression(SLIDE_DEVICE)
                .conditionExpression(TOKEN_IS_ACTIVE)
                .expressionAttributeNames(Map.of("#lastActiveAt", ItemAttributes.LAST_ACTIVE_AT, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(
                        ":now", s(Timestamps.format(now)),
                        ":newTtl", n(newExpiresAt.getEpochSecond()),
                        ":nowSeconds", n(now.getEpochSecond())))
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return conditionalUpdate(request, key, AccessPattern.USE_DEVICE,
                item -> new TouchOutcome.Touched(TableItems.device(item)),
                current -> new TouchOutcome.Rejected(current.map(TableItems::device)));
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return queryIndexPrefix(TableKeys.user(userId), TableKeys.devicesPrefix(), Optional.of(now),
                AccessPattern.LIST_DEVICES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::device).toList();
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        String prefix = deviceId.map(TableKeys::deviceOfUserPrefix).orElse(TableKeys.devicesPrefix());
        List<Map<String, AttributeValue>> items = queryIndexPrefix(TableKeys.user(userId), prefix, Optional.empty(),
                AccessPattern.REVOKE_DEVICES);
        deleteAll(items, AccessPattern.REVOKE_DEVICES);
        return items.stream().map(DynamoDbItems::fromAttributeValues).map(TableItems::device).toList();
    }

    // Audit

    @Override
    public boolean appendAudit(AuditEntry entry) {
        return putIfNew(TableItems.auditItem(entry), AccessPattern.APPEND_AUDIT);
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                      int limit, Instant now) {
        String partition = TableKeys.user(userId);
        QueryRequest.Builder request = QueryRequest.builder()
                .tableName(tableName)
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
        for (Map<String, AttributeValue> item : query(request.build(), AccessPattern.QUERY_AUDIT, limit)) {
            entries.add(TableItems.audit(DynamoDbItems.fromAttributeValues(item)));
        }
        return entries.size() > limit ? entries.subList(0, limit) : entries;
    }

    // Rate limits

    @Override
    public long addToCounter(String userId, String action, Instant windowStart, Instant expiresAt, long delta) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        // The counter's own attributes (userId, action, windowStart, ttl) come from the model, bound as :<name>.
        Map<String, AttributeValue> values = new HashMap<>();
        DynamoDbItems.toAttributeValues(TableItems.counterAttributes(userId, action, windowStart, expiresAt))
                .forEach((name, value) -> values.put(":" + name, value));
        values.put(":delta", n(delta));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(key))
                .updateExpression(ADD_DELTA)
                .expressionAttributeNames(Map.of(
                        "#count", ItemAttributes.COUNT, "#userId", ItemAttributes.USER_ID, "#action", ItemAttributes.ACTION,
                        "#windowStart", ItemAttributes.WINDOW_START, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(values)
                .returnValues(ReturnValue.UPDATED_NEW)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        UpdateItemResponse response = call("count a rate-limited event", () -> client.updateItem(request));
        capacity.record(AccessPattern.COUNT_RATE_LIMIT, response.consumedCapacity());
        return Long.parseLong(response.attributes().get(ItemAttributes.COUNT).n());
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        QueryRequest request = QueryRequest.builder()
                .tableName(tableName)
                .keyConditionExpression(COUNTER_WINDOW)
                .filterExpression(NOT_EXPIRED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(":pk", s(key.pk()), ":sk", s(key.sk()), ":now", n(now.getEpochSecond())))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return query(request, AccessPattern.READ_RATE_LIMIT, Integer.MAX_VALUE).stream().findFirst()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::counter);
    }

    // Operations

    @Override
    public void checkReady() {
        call("describe the table", () -> client.describeTable(request -> request.tableName(tableName)));
        capacity.record(AccessPattern.CHECK_READY, List.of());
    }

    /** The client belongs to whoever built it; closing the store leaves it open. */
    @Override
    public void close() {
    }

    // Helpers

    private boolean putIfNew(Map<String, Object> item, AccessPattern pattern) {
        try {
            capacity.record(pattern, client.putItem(request -> request
                    .tableName(tableName)
                    .item(DynamoDbItems.toAttributeValues(item))
                    .conditionExpression(KEY_IS_NEW)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
            return true;
        } catch (ConditionalCheckFailedException e) {
            capacity.record(pattern, List.of());
            return false;
        } catch (DynamoDbException e) {
            throw failure("write an item", e);
        }
    }

    private TransactWriteItem conditionalPut(Map<String, Object> item) {
        return TransactWriteItem.builder().put(Put.builder()
                .tableName(tableName)
                .item(DynamoDbItems.toAttributeValues(item))
                .conditionExpression(KEY_IS_NEW)
                .build()).build();
    }

    private <T> T conditionalUpdate(UpdateItemRequest request, TableKeys.PrimaryKey key, AccessPattern pattern,
                                    Function<Map<String, Object>, T> applied,
                                    Function<Optional<Map<String, Object>>, T> refused) {
        try {
            UpdateItemResponse response = client.updateItem(request);
            capacity.record(pattern, response.consumedCapacity());
            return applied.apply(DynamoDbItems.fromAttributeValues(response.attributes()));
        } catch (ConditionalCheckFailedException e) {
            capacity.record(pattern, List.of());
            if (e.hasItem() && !e.item().isEmpty()) {
                return refused.apply(Optional.of(DynamoDbItems.fromAttributeValues(e.item())));
            }
            // DynamoDB returns no item only when there is none; an engine without the feature needs a read.
            return refused.apply(conditionFailureReturnsItem ? Optional.empty() : getItem(key, pattern));
        } catch (DynamoDbException e) {
            throw failure("update an item", e);
        }
    }

    private Optional<Map<String, Object>> getItem(TableKeys.PrimaryKey key, AccessPattern pattern) {
        var response = call("read an item", () -> client.getItem(request -> request
                .tableName(tableName)
                .key(keyOf(key))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        capacity.record(pattern, response.consumedCapacity());
        return response.hasItem() && !response.item().isEmpty()
                ? Optional.of(DynamoDbItems.fromAttributeValues(response.item()))
                : Optional.empty();
    }

    private List<Map<String, AttributeValue>> queryIndexPrefix(String gsi1pk, String prefix, Optional<Instant> activeAt,
                                                               AccessPattern pattern) {
        QueryRequest.Builder request = QueryRequest.builder()
                .tableName(tableName)
                .indexName(TableKeys.GSI1)
                .keyConditionExpression(GSI1_BEGINS_WITH)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":pk", s(gsi1pk), ":prefix", s(prefix)));
        activeAt.ifPresent(now -> {
            request.filterExpression(NOT_EXPIRED).expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL));
            values.put(":now", n(now.getEpochSecond()));
        });
        request.expressionAttributeValues(values);
        return query(request.build(), pattern, Integer.MAX_VALUE);
    }

    /** Follows LastEvaluatedKey until the query is exhausted or {@code enough} items were collected. */
    private List<Map<String, AttributeValue>> query(QueryRequest first, AccessPattern pattern, int enough) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        QueryRequest request = first;
        while (true) {
            QueryRequest page = request;
            QueryResponse response = call("query the table", () -> client.query(page));
            capacity.record(pattern, response.consumedCapacity());
            items.addAll(response.items());
            if (items.size() >= enough || !response.hasLastEvaluatedKey() || response.lastEvaluatedKey().isEmpty()) {
                return items;
            }
            Map<String, AttributeValue> next = response.lastEvaluatedKey();
            request = request.toBuilder().exclusiveStartKey(next).build();
        }
    }

    /** Deletes items by their primary key, in BatchWriteItem groups of 25, retrying unprocessed requests. */
    private void deleteAll(List<Map<String, AttributeValue>> items, AccessPattern pattern) {
        for (int start = 0; start < items.size(); start += BATCH_WRITE_LIMIT) {
            List<WriteRequest> batch = new ArrayList<>();
            for (Map<String, AttributeValue> item : items.subList(start, Math.min(items.size(), start + BATCH_WRITE_LIMIT))) {
                batch.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(Map.of(
                        ItemAttributes.PK, item.get(ItemAttributes.PK),
                        ItemAttributes.SK, item.get(ItemAttributes.SK))).build()).build());
            }
            writeBatch(batch, pattern);
        }
    }

    private void writeBatch(List<WriteRequest> batch, AccessPattern pattern) {
        Map<String, List<WriteRequest>> pending = Map.of(tableName, batch);
        for (int attempt = 0; attempt < MAX_BATCH_ATTEMPTS; attempt++) {
            Map<String, List<WriteRequest>> requests = pending;
            BatchWriteItemResponse response = call("delete items", () -> client.batchWriteItem(request -> request
                    .requestItems(requests).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
            capacity.record(pattern, response.consumedCapacity());
            if (!response.hasUnprocessedItems() || response.unprocessedItems().isEmpty()) {
                return;
            }
            pending = response.unprocessedItems();
            backOff(attempt);
        }
        throw new StoreException("DynamoDB left " + pending.getOrDefault(tableName, List.of()).size()
                + " deletes unprocessed after " + MAX_BATCH_ATTEMPTS + " attempts; the table is throttled, retry later");
    }

    private static void backOff(int attempt) {
        try {
            // Exponential backoff, as AWS recommends for unprocessed batch items.
            Thread.sleep(BASE_BACKOFF_MILLIS << attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while retrying unprocessed deletes", e);
        }
    }

    private static Map<String, AttributeValue> keyOf(TableKeys.PrimaryKey key) {
        return Map.of(ItemAttributes.PK, s(key.pk()), ItemAttributes.SK, s(key.sk()));
    }

    private static String describeCancellation(TransactWriteItemsRequest request, List<CancellationReason> reasons) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < request.transactItems().size(); i++) {
            Map<String, AttributeValue> item = request.transactItems().get(i).put().item();
            String code = i < reasons.size() && reasons.get(i).code() != null ? reasons.get(i).code() : "unknown";
            String message = i < reasons.size() && reasons.get(i).message() != null ? " (" + reasons.get(i).message() + ")" : "";
            parts.add("item " + (i + 1) + " " + item.get(ItemAttributes.PK).s() + " / " + item.get(ItemAttributes.SK).s()
                    + ": " + code + message);
        }
        return String.join("; ", parts);
    }

    private static String errorCode(DynamoDbException e) {
        return e.awsErrorDetails() != null && e.awsErrorDetails().errorCode() != null
                ? e.awsErrorDetails().errorCode() : e.getClass().getSimpleName();
    }

    private <T> T call(String what, java.util.function.Supplier<T> request) {
        try {
            return request.get();
        } catch (DynamoDbException e) {
            throw failure(what, e);
        }
    }

    private void call(String what, Runnable request) {
        try {
            request.run();
        } catch (DynamoDbException e) {
            throw failure(what, e);
        }
    }

    private StoreException failure(String what, DynamoDbException e) {
        return new StoreException("DynamoDB could not " + what + " on table '" + tableName + "': " + errorCode(e)
                + " - " + e.getMessage(), e);
    }
}

package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.READ;
import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The plumbing every repository of the DynamoDB store shares: the client and the table's name, capacity
 * recording, the mapping of every SDK failure to a {@link StoreException}, and the requests several access
 * patterns build the same way.
 * <ul>
 *   <li>a conditional put ({@link #putIfNew}): PutItem on {@value #KEY_IS_NEW} with
 *   {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}; a failed condition hands back the item that holds the
 *   key, so the caller can tell its own earlier write (a retry) from another item's;</li>
 *   <li>a conditional update ({@link #conditionalUpdate}): UpdateItem whose answer goes to {@code applied}, and
 *   whose failed condition hands the old item (or, from an engine that does not return it, one consistent
 *   GetItem) to {@code refused}; {@link #updateUnlessConditionFails}: one whose failed condition means done;</li>
 *   <li>a read ({@link #getItem}): GetItem, always consistent;</li>
 *   <li>a listing ({@link #queryIndexPrefix}, {@link #query}): Query GSI1 on {@value #GSI1_BEGINS_WITH} (live
 *   items only: {@value #NOT_EXPIRED}, because TTL deletes late), followed to its last page;</li>
 *   <li>a clean-up ({@link #deleteAll}): BatchWriteItem deletes in groups of {@value #BATCH_WRITE_LIMIT},
 *   unprocessed ones sent again with exponential backoff, up to {@value #MAX_BATCH_ATTEMPTS} times (deleting
 *   twice is harmless); then THROTTLED.</li>
 * </ul>
 * Each request asks for {@code ReturnConsumedCapacity=TOTAL}, added up per {@link AccessPattern} in the
 * {@link ConsumedCapacityRecorder}; a failed condition is recorded as a request without units.
 *
 * <p><b>Failures.</b> Any {@code SdkException} (throttling, a 5xx, a timeout, a refused or reset
 * connection, retries exhausted) becomes a {@link StoreException}; how long the SDK may try is set on the
 * client by whoever builds it (the server bounds every call and every attempt).
 *
 * <p>GSI1 is eventually consistent, as DynamoDB global indexes are (ConsistentRead is refused on it): no rule
 * reads it. It lists (devices, live codes) and finds candidates to delete for tidiness; what a rule must see
 * is on the table, read consistently or checked in a condition (the user's code slot, the revoke-all marker,
 * one device's partition). docs/decisions/0017-which-reads-may-lag.md lists every read and why it may or may not lag.
 */
final class DynamoDbTable {

    static final String KEY_IS_NEW = "attribute_not_exists(PK)";
    static final String GSI1_BEGINS_WITH = "GSI1PK = :pk AND begins_with(GSI1SK, :prefix)";
    static final String NOT_EXPIRED = "#ttl > :now";

    /** DynamoDB's cancellation reason for an item whose condition failed. */
    static final String CONDITION_FAILED = "ConditionalCheckFailed";
    /** DynamoDB's cancellation reason for an item another transaction was writing at the same moment. */
    static final String TRANSACTION_CONFLICT = "TransactionConflict";

    /** BatchWriteItem takes at most 25 requests. */
    static final int BATCH_WRITE_LIMIT = 25;
    private static final int MAX_BATCH_ATTEMPTS = 8;
    private static final long BASE_BACKOFF_MILLIS = 50;

    final DynamoDbClient client;
    final String tableName;
    final ConsumedCapacityRecorder capacity;
    /** Whether a failed condition returns the old item (DynamoDB) or needs a read to learn why (dynalite). */
    final boolean conditionFailureReturnsItem;
    /** Whether audit entries enter the outbox, and which event shards the relay's next look reads. */
    final OutboxLooks outbox = new OutboxLooks();

    DynamoDbTable(DynamoDbClient client, String tableName, ConsumedCapacityRecorder capacity,
                  boolean conditionFailureReturnsItem) {
        this.client = client;
        this.tableName = tableName;
        this.capacity = capacity;
        this.conditionFailureReturnsItem = conditionFailureReturnsItem;
    }

    /** An audit entry's item, in the outbox while webhooks are on ({@link OutboxLooks#auditItem}). */
    Map<String, Object> auditItem(AuditEntry entry) {
        return outbox.auditItem(entry);
    }

    /**
     * PutItem on {@value #KEY_IS_NEW}. Empty when the item was written; otherwise the item that holds the key
     * (returned by the failed condition, or read once where the engine does not return it; an empty map if it
     * vanished in between), so the caller can tell its own earlier write from another item's.
     */
    Optional<Map<String, Object>> putIfNew(Map<String, Object> item, TableKeys.PrimaryKey key,
                                           AccessPattern pattern) {
        try {
            capacity.record(pattern, WRITE, client.putItem(request -> request
                    .tableName(tableName)
                    .item(DynamoDbItems.toAttributeValues(item))
                    .conditionExpression(KEY_IS_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
            return Optional.empty();
        } catch (ConditionalCheckFailedException e) {
            capacity.recordFailedWrite(pattern, 1);
            if (e.hasItem() && !e.item().isEmpty()) {
                return Optional.of(DynamoDbItems.fromAttributeValues(e.item()));
            }
            return Optional.of(getItem(key, pattern).orElse(Map.of()));
        } catch (SdkException e) {
            throw failure("write an item", e);
        }
    }

    /**
     * An UpdateItem whose failed condition means "nothing to do" (the write was done already, or is no longer
     * wanted): only other failures are errors.
     */
    void updateUnlessConditionFails(UpdateItemRequest request, AccessPattern pattern, String what) {
        try {
            capacity.record(pattern, WRITE,
                    TransactionConflicts.retryingConflicts(() -> client.updateItem(request)).consumedCapacity());
        } catch (ConditionalCheckFailedException e) {
            capacity.recordFailedWrite(pattern, 1);
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    /** A transaction's Put of an item on {@value #KEY_IS_NEW}. */
    TransactWriteItem conditionalPut(Map<String, Object> item) {
        return TransactWriteItem.builder().put(Put.builder()
                .tableName(tableName)
                .item(DynamoDbItems.toAttributeValues(item))
                .conditionExpression(KEY_IS_NEW)
                .build()).build();
    }

    <T> T conditionalUpdate(UpdateItemRequest request, TableKeys.PrimaryKey key, AccessPattern pattern,
                            Function<Map<String, Object>, T> applied,
                            Function<Optional<Map<String, Object>>, T> refused) {
        try {
            UpdateItemResponse response = TransactionConflicts.retryingConflicts(() -> client.updateItem(request));
            capacity.record(pattern, WRITE, response.consumedCapacity());
            return applied.apply(DynamoDbItems.fromAttributeValues(response.attributes()));
        } catch (ConditionalCheckFailedException e) {
            capacity.recordFailedWrite(pattern, 1);
            if (e.hasItem() && !e.item().isEmpty()) {
                return refused.apply(Optional.of(DynamoDbItems.fromAttributeValues(e.item())));
            }
            // DynamoDB returns no item only when there is none; an engine without the feature needs a read.
            return refused.apply(conditionFailureReturnsItem ? Optional.empty() : getItem(key, pattern));
        } catch (SdkException e) {
            throw failure("update an item", e);
        }
    }

    Optional<Map<String, Object>> getItem(TableKeys.PrimaryKey key, AccessPattern pattern) {
        var response = call("read an item", () -> client.getItem(request -> request
                .tableName(tableName)
                .key(keyOf(key))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        capacity.record(pattern, READ, response.consumedCapacity());
        return response.hasItem() && !response.item().isEmpty()
                ? Optional.of(DynamoDbItems.fromAttributeValues(response.item()))
                : Optional.empty();
    }

    /**
     * Consistent reads of up to 100 items in one BatchGetItem (its unprocessed keys asked again), by key; an absent
     * item is absent from the answer.
     */
    Map<TableKeys.PrimaryKey, Map<String, Object>> getItems(List<TableKeys.PrimaryKey> keys, AccessPattern pattern) {
        Map<TableKeys.PrimaryKey, Map<String, Object>> found = new HashMap<>();
        List<Map<String, AttributeValue>> pending = new ArrayList<>(keys.stream().distinct()
                .map(DynamoDbTable::keyOf).toList());
        while (!pending.isEmpty()) {
            List<Map<String, AttributeValue>> asked = List.copyOf(pending);
            var response = call("read items", () -> client.batchGetItem(request -> request
                    .requestItems(Map.of(tableName, KeysAndAttributes.builder().keys(asked).consistentRead(true)
                            .build()))
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
            response.consumedCapacity().forEach(units -> capacity.record(pattern, READ, units));
            response.responses().getOrDefault(tableName, List.of()).forEach(item -> {
                Map<String, Object> read = DynamoDbItems.fromAttributeValues(item);
                found.put(new TableKeys.PrimaryKey((String) read.get(ItemAttributes.PK),
                        (String) read.get(ItemAttributes.SK)), read);
            });
            KeysAndAttributes unprocessed = response.unprocessedKeys().get(tableName);
            pending = unprocessed == null ? List.of() : new ArrayList<>(unprocessed.keys());
        }
        return found;
    }

    List<Map<String, AttributeValue>> queryIndexPrefix(String gsi1pk, String prefix, Optional<Instant> activeAt,
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
    List<Map<String, AttributeValue>> query(QueryRequest first, AccessPattern pattern, int enough) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        QueryRequest request = first;
        while (true) {
            QueryRequest page = request;
            QueryResponse response = call("query the table", () -> client.query(page));
            capacity.record(pattern, READ, response.consumedCapacity());
            items.addAll(response.items());
            if (items.size() >= enough || !response.hasLastEvaluatedKey() || response.lastEvaluatedKey().isEmpty()) {
                return items;
            }
            Map<String, AttributeValue> next = response.lastEvaluatedKey();
            request = request.toBuilder().exclusiveStartKey(next).build();
        }
    }

    /** Deletes items by their primary key, in BatchWriteItem groups of 25, retrying unprocessed requests. */
    void deleteAll(List<Map<String, AttributeValue>> items, AccessPattern pattern) {
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
            BatchWriteItemResponse response = call("delete items", () -> TransactionConflicts.retryingConflicts(
                    () -> client.batchWriteItem(request -> request
                            .requestItems(requests).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
            capacity.record(pattern, WRITE, response.consumedCapacity());
            if (!response.hasUnprocessedItems() || response.unprocessedItems().isEmpty()) {
                return;
            }
            pending = response.unprocessedItems();
            backOff(attempt);
        }
        throw new StoreException(StoreException.Kind.THROTTLED, "DynamoDB left "
                + pending.getOrDefault(tableName, List.of()).size() + " deletes unprocessed after " + MAX_BATCH_ATTEMPTS
                + " attempts; the table is throttled, retry later", null);
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

    /**
     * An item's attributes as expression values named {@code :<attribute>} (its key attributes left out), so that
     * an update sets what the model writes without restating it: a mutable map, for the request's own values.
     */
    static Map<String, AttributeValue> boundAsValues(Map<String, Object> attributes) {
        Map<String, AttributeValue> values = new HashMap<>();
        DynamoDbItems.toAttributeValues(attributes).forEach((name, value) -> {
            if (!name.equals(ItemAttributes.PK) && !name.equals(ItemAttributes.SK)) {
                values.put(":" + name, value);
            }
        });
        return values;
    }

    static Map<String, AttributeValue> keyOf(TableKeys.PrimaryKey key) {
        return Map.of(ItemAttributes.PK, s(key.pk()), ItemAttributes.SK, s(key.sk()));
    }

    static String describeCancellation(TransactWriteItemsRequest request, List<CancellationReason> reasons) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < request.transactItems().size(); i++) {
            TransactWriteItem item = request.transactItems().get(i);
            Map<String, AttributeValue> key = item.put() != null ? item.put().item()
                    : item.update() != null ? item.update().key() : null;
            String code = Optional.ofNullable(reasonCode(reasons, i)).orElse("unknown");
            if (key == null && item.delete() != null) {
                key = item.delete().key();
            }
            if (key == null && item.conditionCheck() != null) {
                key = item.conditionCheck().key();
            }
            String message = i < reasons.size() && reasons.get(i).message() != null ? " (" + reasons.get(i).message() + ")" : "";
            parts.add("item " + (i + 1) + " " + key.get(ItemAttributes.PK).s() + " / " + key.get(ItemAttributes.SK).s()
                    + ": " + code + message);
        }
        return String.join("; ", parts);
    }

    /** The cancellation reason of the transaction's item at {@code index}, if DynamoDB gave one. */
    static String reasonCode(List<CancellationReason> reasons, int index) {
        return index < reasons.size() ? reasons.get(index).code() : null;
    }

    /** The service's error code (ThrottlingException, ...) or, for a failure of the client itself, its type. */
    private static String errorCode(SdkException e) {
        if (e instanceof AwsServiceException service && service.awsErrorDetails() != null
                && service.awsErrorDetails().errorCode() != null) {
            return service.awsErrorDetails().errorCode();
        }
        return e.getClass().getSimpleName();
    }

    <T> T call(String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    void call(String what, Runnable request) {
        try {
            request.run();
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    /**
     * Every failure of the SDK, of the service (throttling, a 500) or of the client (timeout, connection
     * refused or reset, retries exhausted), becomes a StoreException: the caller answers 503 and the client
     * retries later. The SDK has already retried within its bounded policy.
     */
    StoreException failure(String what, SdkException e) {
        return new StoreException(kindOf(e), "DynamoDB could not " + what + " on table '" + tableName + "': "
                + errorCode(e) + " - " + e.getMessage(), e);
    }

    /**
     * What happened, for the caller's answer: a timeout, throttling, no connection, a 5xx of the service, or a
     * 4xx the store never provokes on a well-formed table (an engine without the operation, a table changed
     * under the service): the last is named as unexpected rather than passed off as a timeout.
     */
    static StoreException.Kind kindOf(SdkException e) {
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException
                || e instanceof TransactionInProgressException) {
            return StoreException.Kind.TIMED_OUT; // in progress: the transaction's own earlier try has not ended
        }
        if (e instanceof TransactionConflictException) {
            return StoreException.Kind.BUSY; // a running transaction held the item each time: nothing was written
        }
        if (e instanceof AwsServiceException service) {
            if (service.isThrottlingException()) {
                return StoreException.Kind.THROTTLED;
            }
            return service.statusCode() >= 500 ? StoreException.Kind.FAILED : StoreException.Kind.UNEXPECTED_ANSWER;
        }
        // A client-side failure: a read that timed out, or any other I/O failure of the connection (refused,
        // reset, no answer, unknown host), whichever HTTP client the SDK runs on.
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.SocketTimeoutException) {
                return StoreException.Kind.TIMED_OUT;
            }
            if (cause instanceof java.io.IOException) {
                return StoreException.Kind.UNREACHABLE;
            }
        }
        return StoreException.Kind.FAILED;
    }
}

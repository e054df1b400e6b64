package dev.verificationservice.bench;

import dev.verificationservice.testsupport.dynamodb.DynamoDbUnits;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * An SDK interceptor on the store's client that notes, for every call, when it started and ended (to tell
 * which requests were in flight together) and what DynamoDB would bill for it ({@link DynamoDbUnits}), from the
 * items themselves: each written item is read from the engine just before and just after the call, through a
 * client that bypasses the recording proxy. Only for sequential measurement (one API operation at a time).
 */
final class Meter implements ExecutionInterceptor {

    /** One SDK call: its span, the units it is billed, and the units dynalite reported for it. */
    record Call(String operation, long startNanos, long endNanos, double readUnits, double writeUnits,
                double writeUnitsIfPlain, double reportedUnits, boolean failed) {
    }

    private static final ExecutionAttribute<Long> START = new ExecutionAttribute<>("bench-start");
    private static final ExecutionAttribute<Map<Key, Map<String, AttributeValue>>> BEFORE =
            new ExecutionAttribute<>("bench-before");

    private record Key(AttributeValue pk, AttributeValue sk) {
        Map<String, AttributeValue> asMap() {
            return Map.of("PK", pk, "SK", sk);
        }

        static Key of(Map<String, AttributeValue> item) {
            return new Key(item.get("PK"), item.get("SK"));
        }
    }

    private final DynamoDbClient engine;
    private final String table;
    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());

    Meter(DynamoDbClient engine, String table) {
        this.engine = engine;
        this.table = table;
    }

    List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    void clear() {
        calls.clear();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        attributes.putAttribute(START, System.nanoTime());
        List<Key> keys = writtenKeys(context.request());
        if (!keys.isEmpty()) {
            attributes.putAttribute(BEFORE, read(keys));
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        long end = System.nanoTime();
        calls.add(bill(context.request(), context.response(), attributes, end, false));
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        long end = System.nanoTime();
        calls.add(bill(context.request(), null, attributes, end, true));
    }

    private Call bill(SdkRequest request, SdkResponse response, ExecutionAttributes attributes, long end, boolean failed) {
        String operation = request.getClass().getSimpleName().replace("Request", "");
        long start = attributes.getAttribute(START);
        double reported = reported(response);
        Map<Key, Map<String, AttributeValue>> before = attributes.getAttribute(BEFORE);
        if (request instanceof GetItemRequest get) {
            Map<String, AttributeValue> item = response instanceof GetItemResponse got && got.hasItem() ? got.item() : null;
            return new Call(operation, start, end, DynamoDbUnits.readUnits(DynamoDbUnits.itemSize(item), Boolean.TRUE.equals(get.consistentRead())),
                    0, 0, reported, failed);
        }
        if (request instanceof QueryRequest query) {
            List<Map<String, AttributeValue>> items = response instanceof QueryResponse result ? result.items() : List.of();
            boolean consistent = query.indexName() == null && Boolean.TRUE.equals(query.consistentRead());
            return new Call(operation, start, end, DynamoDbUnits.readUnits(items, consistent), 0, 0, reported, failed);
        }
        if (before == null) {
            return new Call(operation, start, end, 0, 0, 0, reported, failed); // DescribeTable and the like: free
        }
        Map<Key, Map<String, AttributeValue>> after = read(new ArrayList<>(before.keySet()));
        double write = 0;
        double plain = 0;
        if (request instanceof TransactWriteItemsRequest transaction) {
            for (TransactWriteItem action : transaction.transactItems()) {
                Key key = Key.of(keyOf(action));
                Map<String, AttributeValue> was = before.get(key);
                Map<String, AttributeValue> is = after.get(key);
                long size = action.conditionCheck() != null ? DynamoDbUnits.itemSize(was)
                        : Math.max(DynamoDbUnits.itemSize(was), DynamoDbUnits.itemSize(is));
                long units = DynamoDbUnits.writeUnits(size);
                long index = failed || action.conditionCheck() != null ? 0 : DynamoDbUnits.indexWriteUnits(was, is);
                write += (failed ? 1 : 2) * units + index;
                plain += units + index;
            }
        } else {
            for (Map.Entry<Key, Map<String, AttributeValue>> entry : before.entrySet()) {
                Map<String, AttributeValue> was = entry.getValue();
                Map<String, AttributeValue> is = after.get(entry.getKey());
                long units = DynamoDbUnits.writeUnits(Math.max(DynamoDbUnits.itemSize(was), DynamoDbUnits.itemSize(is)));
                long index = failed ? 0 : DynamoDbUnits.indexWriteUnits(was, is);
                write += units + index;
            }
            plain = write;
        }
        return new Call(operation, start, end, 0, write, plain, reported, failed);
    }

    private static double reported(SdkResponse response) {
        if (response == null) {
            return 0;
        }
        Object capacity = response.getValueForField("ConsumedCapacity", Object.class).orElse(null);
        double units = 0;
        if (capacity instanceof ConsumedCapacity one && one.capacityUnits() != null) {
            units += one.capacityUnits();
        } else if (capacity instanceof List<?> many) {
            for (Object each : many) {
                if (each instanceof ConsumedCapacity one && one.capacityUnits() != null) {
                    units += one.capacityUnits();
                }
            }
        }
        return units;
    }

    private static Map<String, AttributeValue> keyOf(TransactWriteItem action) {
        if (action.put() != null) {
            return action.put().item();
        }
        if (action.update() != null) {
            return action.update().key();
        }
        if (action.delete() != null) {
            return action.delete().key();
        }
        return action.conditionCheck().key();
    }

    /** The keys a write request touches; empty for reads. */
    private List<Key> writtenKeys(SdkRequest request) {
        List<Key> keys = new ArrayList<>();
        if (request instanceof PutItemRequest put) {
            keys.add(Key.of(put.item()));
        } else if (request instanceof UpdateItemRequest update) {
            keys.add(Key.of(update.key()));
        } else if (request instanceof DeleteItemRequest delete) {
            keys.add(Key.of(delete.key()));
        } else if (request instanceof TransactWriteItemsRequest transaction) {
            transaction.transactItems().forEach(action -> keys.add(Key.of(keyOf(action))));
        } else if (request instanceof BatchWriteItemRequest batch) {
            for (List<WriteRequest> writes : batch.requestItems().values()) {
                for (WriteRequest write : writes) {
                    keys.add(Key.of(write.deleteRequest() != null ? write.deleteRequest().key() : write.putRequest().item()));
                }
            }
        }
        return keys;
    }

    private Map<Key, Map<String, AttributeValue>> read(List<Key> keys) {
        Map<Key, Map<String, AttributeValue>> items = new HashMap<>();
        for (Key key : keys) {
            var response = engine.getItem(request -> request.tableName(table).key(key.asMap()).consistentRead(true));
            items.put(key, response.hasItem() && !response.item().isEmpty() ? response.item() : null);
        }
        return items;
    }
}

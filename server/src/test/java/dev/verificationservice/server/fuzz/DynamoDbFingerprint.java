package dev.verificationservice.server.fuzz;

import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.table.ItemAttributes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The content of the DynamoDB table (dynalite), read with a consistent Scan straight from the engine: the item
 * count and a SHA-256 over every item (attributes in name order) in key order.
 *
 * <p>Scanning the whole table around every request would be slow, so the print is cached and only read again
 * when the service sent a write since (the fault proxy between the service and the engine records every
 * request: the same shortcut as SQLite's {@code data_version} for the embedded store).
 */
final class DynamoDbFingerprint implements StoreFingerprint {

    private static final Set<String> WRITES = Set.of("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
            "TransactWriteItems");

    private final DynamoDbClient engine;
    private final String table;
    private final DynamoDbFaultProxy serviceSide;
    private Print cached;
    private long recomputations;
    private long recomputeNanos;

    /**
     * @param engine      a client of the engine itself (not of the proxy: the scans are no traffic of the service)
     * @param serviceSide the proxy the service talks through, whose recording tells when it wrote
     */
    DynamoDbFingerprint(DynamoDbClient engine, String table, DynamoDbFaultProxy serviceSide) {
        this.engine = engine;
        this.table = table;
        this.serviceSide = serviceSide;
    }

    @Override
    public Print current() {
        boolean wrote = serviceSide.operations().stream().anyMatch(WRITES::contains);
        serviceSide.clearRecording();
        if (cached == null || wrote) {
            cached = compute();
        }
        return cached;
    }

    private Print compute() {
        long started = System.nanoTime();
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        Map<String, AttributeValue> startKey = null;
        do {
            ScanResponse page = engine.scan(ScanRequest.builder().tableName(table).consistentRead(true)
                    .exclusiveStartKey(startKey).build());
            items.addAll(page.items());
            startKey = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (startKey != null);
        items.sort(Comparator.comparing((Map<String, AttributeValue> item) -> item.get(ItemAttributes.PK).s())
                .thenComparing(item -> item.get(ItemAttributes.SK).s()));
        MessageDigest digest = StoreFingerprint.sha256();
        for (Map<String, AttributeValue> item : items) {
            digest.update(new TreeMap<>(item).toString().getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0x1E);
        }
        recomputations++;
        recomputeNanos += System.nanoTime() - started;
        return new Print(items.size(), HexFormat.of().formatHex(digest.digest()));
    }

    @Override
    public long recomputations() {
        return recomputations;
    }

    @Override
    public long recomputeMillis() {
        return recomputeNanos / 1_000_000;
    }

    @Override
    public void close() {
        // the engine's client and the proxy belong to the caller
    }
}

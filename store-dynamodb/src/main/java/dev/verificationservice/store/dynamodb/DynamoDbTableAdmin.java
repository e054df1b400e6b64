package dev.verificationservice.store.dynamodb;

import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.IndexStatus;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ReplicaDescription;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.WarmThroughput;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/**
 * Creates the single table and checks an existing one. The shape: partition key {@code PK} (S), sort key
 * {@code SK} (S), on-demand billing, global secondary index {@code GSI1} on {@code GSI1PK} (S) /
 * {@code GSI1SK} (S) projecting ALL, the sparse index {@code OUTBOX} on {@code OUTBOXPK} (S) / {@code OUTBOXSK} (S)
 * projecting ALL (undelivered events and pending webhook deliveries), and TTL enabled on {@code ttl}. A
 * table made before the OUTBOX index gets it from {@link #createTable} (UpdateTable), run again. A warm throughput,
 * when given, is sent for the table and both indexes on creation only: DynamoDB can only raise it and bills each
 * raise once, so an existing table is never changed by a setting that may be lower than what it already has.
 */
public final class DynamoDbTableAdmin {

    /** What {@link #createTable} found or did. */
    public enum CreateOutcome { CREATED, ALREADY_EXISTS, INDEX_ADDED }

    /** The attribute DynamoDB's TTL is enabled on ({@link #enableTimeToLive}) and checked on ({@link #shapeDifferences}). */
    public static final String TTL_ATTRIBUTE = ItemAttributes.TTL;

    /** The write units a second a new on-demand table (and each of its indexes) can serve from the start. */
    public static final long START_WRITE_UNITS = 4_000;
    /** The read units a second a new on-demand table (and each of its indexes) can serve from the start. */
    public static final long START_READ_UNITS = 12_000;

    private final DynamoDbClient client;
    private final String tableName;
    private final WarmThroughput warm;

    public DynamoDbTableAdmin(DynamoDbClient client, String tableName) {
        this(client, tableName, null);
    }

    /** As {@link #DynamoDbTableAdmin(DynamoDbClient, String)}, creating the table pre-warmed to {@code warm} (null: not). */
    public DynamoDbTableAdmin(DynamoDbClient client, String tableName, WarmThroughput warm) {
        this.client = client;
        this.tableName = tableName;
        this.warm = warm;
    }

    /**
     * The warm throughput to create the table with, or null when neither value is set (nothing is sent). A value
     * is refused, naming it, unless above what a new on-demand table starts with, as a lower one would pay for nothing.
     */
    public static WarmThroughput warmThroughput(Long writeUnits, Long readUnits) {
        if (writeUnits == null && readUnits == null) {
            return null;
        }
        requireAbove("write", writeUnits, START_WRITE_UNITS);
        requireAbove("read", readUnits, START_READ_UNITS);
        return WarmThroughput.builder().writeUnitsPerSecond(writeUnits).readUnitsPerSecond(readUnits).build();
    }

    private static void requireAbove(String kind, Long units, long start) {
        if (units != null && units <= start) {
            throw new IllegalArgumentException("warm " + kind + " units must be more than " + start
                    + ", what a new on-demand table starts with, but is " + units);
        }
    }

    /** The warm throughput the table is created with; null when none is sent. */
    public WarmThroughput warm() {
        return warm;
    }

    /** The CreateTable request for the single table: on-demand, GSI1 with ALL projection. */
    public CreateTableRequest createTableRequest() {
        return createTableRequest(tableName, warm);
    }

    /**
     * The CreateTable request for the single table of this name: the table's shape as {@code create-table} makes
     * it, and the one definition that the CloudFormation template in {@code deploy/} is tested against.
     */
    public static CreateTableRequest createTableRequest(String tableName) {
        return createTableRequest(tableName, null);
    }

    /** As {@link #createTableRequest(String)}, the table and its indexes pre-warmed to {@code warm} unless null. */
    public static CreateTableRequest createTableRequest(String tableName, WarmThroughput warm) {
        return CreateTableRequest.builder()
                .tableName(tableName)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        stringAttribute(ItemAttributes.PK), stringAttribute(ItemAttributes.SK),
                        stringAttribute(ItemAttributes.GSI1PK), stringAttribute(ItemAttributes.GSI1SK),
                        stringAttribute(ItemAttributes.OUTBOX_PK), stringAttribute(ItemAttributes.OUTBOX_SK))
                .keySchema(key(ItemAttributes.PK, KeyType.HASH), key(ItemAttributes.SK, KeyType.RANGE))
                // Each index is written with the table's writes: one left cold would throttle them (back-pressure).
                .globalSecondaryIndexes(
                        index(TableKeys.GSI1, ItemAttributes.GSI1PK, ItemAttributes.GSI1SK, warm),
                        index(TableKeys.OUTBOX_INDEX, ItemAttributes.OUTBOX_PK, ItemAttributes.OUTBOX_SK, warm))
                .warmThroughput(warm)
                .build();
    }

    private static GlobalSecondaryIndex index(String name, String hash, String range, WarmThroughput warm) {
        return GlobalSecondaryIndex.builder()
                .indexName(name)
                .keySchema(key(hash, KeyType.HASH), key(range, KeyType.RANGE))
                .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                .warmThroughput(warm)
                .build();
    }

    /**
     * Creates the table and waits until it is active. An existing table is left as it is, except that an index added
     * by a later version (OUTBOX) is created with UpdateTable and waited for (DynamoDB backfills it from the items).
     */
    public CreateOutcome createTable() {
        try {
            client.createTable(createTableRequest());
        } catch (ResourceInUseException e) {
            return addOutboxIndexIfMissing() ? CreateOutcome.INDEX_ADDED : CreateOutcome.ALREADY_EXISTS;
        }
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
                .client(client)
                // A new on-demand table is usually active within seconds; poll each second for up to five minutes.
                .overrideConfiguration(config -> config
                        .backoffStrategyV2(BackoffStrategy.fixedDelayWithoutJitter(Duration.ofSeconds(1)))
                        .maxAttempts(300))
                .build()) {
            waiter.waitUntilTableExists(request -> request.tableName(tableName));
        }
        return CreateOutcome.CREATED;
    }

    private boolean addOutboxIndexIfMissing() {
        TableDescription table = client.describeTable(request -> request.tableName(tableName)).table();
        if (table.globalSecondaryIndexes().stream().anyMatch(i -> TableKeys.OUTBOX_INDEX.equals(i.indexName()))) {
            return false;
        }
        GlobalSecondaryIndex outbox = index(TableKeys.OUTBOX_INDEX, ItemAttributes.OUTBOX_PK, ItemAttributes.OUTBOX_SK, null);
        client.updateTable(request -> request.tableName(tableName)
                .attributeDefinitions(stringAttribute(ItemAttributes.OUTBOX_PK), stringAttribute(ItemAttributes.OUTBOX_SK))
                .globalSecondaryIndexUpdates(update -> update.create(create -> create
                        .indexName(outbox.indexName()).keySchema(outbox.keySchema()).projection(outbox.projection()))));
        // Backfilling the index may take minutes on a large table; poll each second for up to an hour.
        for (int attempt = 0; attempt < 3600; attempt++) {
            Optional<IndexStatus> status = client.describeTable(request -> request.tableName(tableName)).table()
                    .globalSecondaryIndexes().stream().filter(i -> TableKeys.OUTBOX_INDEX.equals(i.indexName()))
                    .map(GlobalSecondaryIndexDescription::indexStatus).findFirst();
            if (status.equals(Optional.of(IndexStatus.ACTIVE))) {
                return true;
            }
            if (status.isEmpty()) {
                // DynamoDB lists a new index as CREATING at once; an engine that ignores the request never does.
                throw new IllegalStateException("the engine accepted UpdateTable but did not add the OUTBOX index to "
                        + tableName + "; create the table anew with create-table, or add the index by hand");
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the OUTBOX index was being created", e);
            }
        }
        throw new IllegalStateException("the OUTBOX index of " + tableName + " is still not active after an hour; "
                + "run create-table again later to check");
    }

    /** Turns on DynamoDB TTL on {@code ttl}, so that expired items are eventually deleted. */
    public void enableTimeToLive() {
        client.updateTimeToLive(request -> request.tableName(tableName)
                .timeToLiveSpecification(spec -> spec.attributeName(TTL_ATTRIBUTE).enabled(true)));
    }

    /** Every way the existing table differs from the expected shape; empty when it matches. */
    public List<String> shapeDifferences() {
        return shapeDifferences(true);
    }

    /**
     * Every way the existing table differs from the expected shape, the TTL setting only when
     * {@code includeTtl} (an engine without TTL still runs correctly; validity never depends on it).
     */
    public List<String> shapeDifferences(boolean includeTtl) {
        TableDescription table;
        try {
            table = client.describeTable(request -> request.tableName(tableName)).table();
        } catch (ResourceNotFoundException e) {
            return List.of("the table does not exist");
        }
        List<String> differences = new ArrayList<>();
        Map<String, ScalarAttributeType> types = table.attributeDefinitions().stream()
                .collect(Collectors.toMap(AttributeDefinition::attributeName, AttributeDefinition::attributeType));
        expectKeys("the table", table.keySchema(), ItemAttributes.PK, ItemAttributes.SK, types, differences);

        expectIndex(table, TableKeys.GSI1, ItemAttributes.GSI1PK, ItemAttributes.GSI1SK, "", types, differences);
        expectIndex(table, TableKeys.OUTBOX_INDEX, ItemAttributes.OUTBOX_PK, ItemAttributes.OUTBOX_SK,
                " (added for webhooks: run create-table again, it adds the index to the existing table with "
                        + "UpdateTable, or update the stack from deploy/verification-table.yaml)", types, differences);

        if (!includeTtl) {
            return differences;
        }
        DescribeTimeToLiveResponse ttl = client.describeTimeToLive(request -> request.tableName(tableName));
        TimeToLiveStatus status = ttl.timeToLiveDescription() == null ? null
                : ttl.timeToLiveDescription().timeToLiveStatus();
        String attribute = ttl.timeToLiveDescription() == null ? null : ttl.timeToLiveDescription().attributeName();
        boolean enabled = status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING;
        if (!enabled || !TTL_ATTRIBUTE.equals(attribute)) {
            differences.add("TTL is " + status + (attribute == null ? "" : " on '" + attribute + "'")
                    + " instead of ENABLED on '" + TTL_ATTRIBUTE + "'");
        }
        return differences;
    }

    /** Fails fast, naming every difference, unless the table has the expected shape. */
    public void requireShape() {
        requireShape(true);
    }

    /** As {@link #requireShape()}, with the TTL setting checked only when {@code requireTtl}. */
    public void requireShape(boolean requireTtl) {
        List<String> differences = shapeDifferences(requireTtl);
        if (!differences.isEmpty()) {
            throw new TableShapeException(tableName, differences);
        }
    }

    /**
     * Refuses a table replicated to other Regions unless {@code allowed} accepts its kind: one DescribeTable, its
     * {@code Replicas}, {@code GlobalTableVersion} and {@code MultiRegionConsistency}. A table of one Region passes;
     * MRSC never does (no transactions, no TTL); MREC only with {@link GlobalTableMode#SINGLE_WRITER}. Returns the
     * other Regions' names (empty for a table of one Region).
     */
    public List<String> requireSupportedReplication(GlobalTableMode allowed) {
        TableDescription table = client.describeTable(request -> request.tableName(tableName)).table();
        List<String> regions = table.replicas().stream().map(ReplicaDescription::regionName).toList();
        if (regions.isEmpty() && table.globalTableVersion() == null) {
            return regions;
        }
        String where = regions.isEmpty() ? "is a global table (version " + table.globalTableVersion() + ")"
                : "is a global table with replicas in " + String.join(", ", regions);
        if (table.multiRegionConsistency() == MultiRegionConsistency.STRONG) {
            throw new GlobalTableException(tableName, where + " and multi-Region strong consistency (MRSC), which "
                    + "supports neither the transactions every verification writes nor TTL: no setting allows it. "
                    + "Use a table of one Region, or an MREC global table written in one Region only "
                    + "(docs/multi-region.md).");
        }
        if (allowed != GlobalTableMode.SINGLE_WRITER) {
            throw new GlobalTableException(tableName, where + " (multi-Region eventual consistency, MREC): each Region "
                    + "checks conditions against its own copy and the last writer wins, so a code could be used once "
                    + "in each Region and limits would lose counts. If the service writes in one Region only at any "
                    + "time (the others stand by to fail over to), set VERIFICATION_DYNAMODB_GLOBAL_TABLE=single-writer; "
                    + "otherwise use a table of one Region (docs/multi-region.md).");
        }
        return regions;
    }

    private static void expectIndex(TableDescription table, String name, String hash, String range, String whenMissing,
                                    Map<String, ScalarAttributeType> types, List<String> differences) {
        Optional<GlobalSecondaryIndexDescription> index = table.globalSecondaryIndexes().stream()
                .filter(described -> name.equals(described.indexName()))
                .findFirst();
        if (index.isEmpty()) {
            differences.add("global secondary index " + name + " is missing" + whenMissing);
            return;
        }
        expectKeys("index " + name, index.get().keySchema(), hash, range, types, differences);
        ProjectionType projection = index.get().projection() == null ? null : index.get().projection().projectionType();
        if (projection != ProjectionType.ALL) {
            differences.add("index " + name + " projects " + projection + " instead of ALL");
        }
    }

    private static void expectKeys(String where, List<KeySchemaElement> schema, String hash, String range,
                                   Map<String, ScalarAttributeType> types, List<String> differences) {
        String actualHash = keyName(schema, KeyType.HASH);
        String actualRange = keyName(schema, KeyType.RANGE);
        if (!hash.equals(actualHash)) {
            differences.add(where + " has partition key " + actualHash + " instead of " + hash);
        } else if (types.get(hash) != ScalarAttributeType.S) {
            differences.add(where + " has partition key " + hash + " of type " + types.get(hash) + " instead of S");
        }
        if (!range.equals(actualRange)) {
            differences.add(where + " has sort key " + actualRange + " instead of " + range);
        } else if (types.get(range) != ScalarAttributeType.S) {
            differences.add(where + " has sort key " + range + " of type " + types.get(range) + " instead of S");
        }
    }

    private static String keyName(List<KeySchemaElement> schema, KeyType type) {
        return schema.stream().filter(element -> element.keyType() == type).map(KeySchemaElement::attributeName)
                .findFirst().orElse(null);
    }

    private static AttributeDefinition stringAttribute(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }
}

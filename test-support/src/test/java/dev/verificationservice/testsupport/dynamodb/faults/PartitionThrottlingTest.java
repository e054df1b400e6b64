package dev.verificationservice.testsupport.dynamodb.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange.Outcome;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Kind;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.PartitionKey;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Usage;
import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * The fault proxy's partition limits ({@link PartitionThrottling}) against dynalite, through a real client that does
 * not retry: a key's bucket refills with the test's clock and holds no more than a second's worth, a hot key is
 * throttled while the others pass, an index key refuses the base table's write, and the charges follow DynamoDB's
 * unit rules (the larger image of a write, a failed condition, a Query's items summed).
 */
@Timeout(30)
class PartitionThrottlingTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static final PartitionLimits TWO_WRITES = new PartitionLimits(2, 30);
    private static String table;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
    private DynamoDbFaultProxy proxy;
    private DynamoDbClient client;

    /** A table keyed by {@code id} and {@code n}, with an index {@code BY_GROUP} on {@code group} / {@code at}. */
    @BeforeAll
    static void createTable() {
        table = "partitions-" + UUID.randomUUID();
        DynamoDbClient engine = DYNALITE.get().client();
        engine.createTable(request -> request.tableName(table)
                .attributeDefinitions(definition("id"), definition("n"), definition("group"), definition("at"))
                .keySchema(key("id", KeyType.HASH), key("n", KeyType.RANGE))
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder().indexName("BY_GROUP")
                        .keySchema(key("group", KeyType.HASH), key("at", KeyType.RANGE))
                        .projection(projection -> projection.projectionType(ProjectionType.ALL)).build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
        engine.waiter().waitUntilTableExists(request -> request.tableName(table));
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    private void start(PartitionLimits limits) {
        start(DynamoDbFaultProxy.Options.defaults().measuredBy(clock::epochNanos).withPartitionLimits(limits));
    }

    private void start(DynamoDbFaultProxy.Options options) {
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(), options);
        client = DynamoDbClient.builder().endpointOverride(proxy.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(ApacheHttpClient.builder().build())
                .overrideConfiguration(config -> config.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    @Test
    void aKeysBucketRefillsWithTheClockAndHoldsNoMoreThanOneSecondsWorth() {
        start(TWO_WRITES);
        String id = UUID.randomUUID().toString();

        put(id, 1, null);
        put(id, 2, null);
        assertThatThrownBy(() -> put(id, 3, null)).isInstanceOf(ProvisionedThroughputExceededException.class)
                .hasMessageContaining("Throughput exceeds the current capacity of your table or index");

        clock.advance(Duration.ofMillis(500)); // one unit back
        put(id, 3, null);
        assertThatThrownBy(() -> put(id, 4, null)).isInstanceOf(ProvisionedThroughputExceededException.class);

        clock.advance(Duration.ofSeconds(60)); // a minute idle: still two units, not 120
        put(id, 4, null);
        put(id, 5, null);
        assertThatThrownBy(() -> put(id, 6, null)).isInstanceOf(ProvisionedThroughputExceededException.class);

        assertThat(DYNALITE.get().client().getItem(request -> request.tableName(table).key(itemKey(id, 6))).hasItem())
                .as("a throttled write is not applied").isFalse();
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).filteredOn(Outcome.PARTITION_THROTTLED::equals)
                .hasSize(3);
        Usage used = usageOf(new PartitionKey(table, "", id));
        assertThat(used.writeUnits()).isEqualTo(5);
        assertThat(used.writeThrottles()).isEqualTo(3);
        assertThat(used.refusedWriteUnits()).isEqualTo(3);
    }

    @Test
    void aHotKeyIsThrottledWhileOtherKeysPass() {
        start(TWO_WRITES);
        String hot = UUID.randomUUID().toString();
        put(hot, 1, null);
        put(hot, 2, null);

        for (int i = 0; i < 10; i++) {
            String cold = UUID.randomUUID().toString();
            put(cold, 1, null);
            assertThatThrownBy(() -> put(hot, 3, null)).isInstanceOf(ProvisionedThroughputExceededException.class);
        }

        assertThat(proxy.partitions().throttled()).extracting(Usage::key)
                .containsExactly(new PartitionKey(table, "", hot));
        assertThat(proxy.partitions().throttleCount()).isEqualTo(10);
        assertThat(proxy.partitions().hottest(Kind.WRITE).get(0).writeUnits()).isEqualTo(2);
    }

    @Test
    void aThrottledIndexKeyRefusesTheBaseTablesWrite() {
        start(TWO_WRITES);
        String group = "shared-" + UUID.randomUUID();
        String first = UUID.randomUUID().toString();
        String second = UUID.randomUUID().toString();
        String third = UUID.randomUUID().toString();

        put(first, 1, group);
        put(second, 1, group); // two different table keys, one index key: its bucket is empty now
        assertThatThrownBy(() -> put(third, 1, group)).isInstanceOf(ProvisionedThroughputExceededException.class)
                .hasMessageContaining("global secondary indexes");

        assertThat(DYNALITE.get().client().getItem(request -> request.tableName(table).key(itemKey(third, 1))).hasItem())
                .as("the base write is refused with its index write").isFalse();
        assertThat(proxy.partitions().throttled()).extracting(Usage::key)
                .containsExactly(new PartitionKey(table, "BY_GROUP", group));
        assertThat(usageOf(new PartitionKey(table, "", third)).writeUnits()).isZero();
        put(third, 1, "g-" + third); // the same write under an index key of its own passes
        assertThatThrownBy(() -> client.updateItem(request -> request.tableName(table).key(itemKey(first, 1))
                .updateExpression("SET note = :note").expressionAttributeValues(Map.of(":note", s("changed")))))
                .as("an update of an item in the index is refused by the index key too")
                .isInstanceOf(ProvisionedThroughputExceededException.class);
    }

    @Test
    void aWriteIsChargedOnTheLargerImageAndAFailedConditionOnTheItemAsItIs() {
        start(new PartitionLimits(100, 100));
        String id = UUID.randomUUID().toString();
        String big = "x".repeat(2_500);
        client.putItem(request -> request.tableName(table).item(Map.of("id", s(id), "n", n(1), "filler", s(big))));
        client.updateItem(request -> request.tableName(table).key(itemKey(id, 1)).updateExpression("REMOVE filler"));
        assertThatThrownBy(() -> client.putItem(request -> request.tableName(table)
                .item(Map.of("id", s(id), "n", n(1))).conditionExpression("attribute_not_exists(id)")))
                .isInstanceOf(ConditionalCheckFailedException.class);

        // 3 units for the put of 2.5 KB, 3 for shrinking it (its before image), 1 for the failed condition
        assertThat(usageOf(new PartitionKey(table, "", id)).writeUnits()).isEqualTo(7);
    }

    @Test
    void aQueryIsChargedOnTheItemsItReadSummedAndToTheIndexKeyItNames() {
        start(new PartitionLimits(100, 100));
        String id = UUID.randomUUID().toString();
        String group = "g-" + id;
        String pad = "y".repeat(3_000);
        for (int i = 1; i <= 3; i++) {
            int n = i;
            client.putItem(request -> request.tableName(table).item(Map.of("id", s(id), "n", n(n), "group", s(group),
                    "at", n(n), "pad", s(pad))));
        }

        assertThat(client.query(request -> request.tableName(table).consistentRead(true)
                .keyConditionExpression("#id = :id").expressionAttributeNames(Map.of("#id", "id"))
                .expressionAttributeValues(Map.of(":id", s(id)))).count()).isEqualTo(3);
        assertThat(client.query(request -> request.tableName(table).indexName("BY_GROUP")
                .keyConditionExpression("#g = :g").expressionAttributeNames(Map.of("#g", "group"))
                .expressionAttributeValues(Map.of(":g", s(group))).select("COUNT")).count()).isEqualTo(3);

        // about 9 KB read: 3 strongly consistent units on the table, 1.5 eventually consistent ones on the index,
        // the count sized by the items it read although its answer holds none
        assertThat(usageOf(new PartitionKey(table, "", id)).readUnits()).isEqualTo(3);
        assertThat(usageOf(new PartitionKey(table, "BY_GROUP", group)).readUnits()).isEqualTo(1.5);
    }

    @Test
    void aKeyOverItsReadLimitIsThrottledAndRefillsWithTheClock() {
        start(new PartitionLimits(100, 2));
        String id = UUID.randomUUID().toString();
        put(id, 1, null);

        get(id);
        get(id);
        assertThatThrownBy(() -> get(id)).isInstanceOf(ProvisionedThroughputExceededException.class);
        clock.advance(Duration.ofSeconds(1));
        get(id);

        Usage used = usageOf(new PartitionKey(table, "", id));
        assertThat(used.readUnits()).isEqualTo(3);
        assertThat(used.readThrottles()).isEqualTo(1);
        assertThat(used.writeThrottles()).isZero();
    }

    @Test
    void aTransactionsActionsAreChargedTwiceAndItsIndexWritesOnce() {
        start(DynamoDbFaultProxy.Options.defaults().emulatingTransactions().measuredBy(clock::epochNanos)
                .withPartitionLimits(new PartitionLimits(100, 100)));
        String put = UUID.randomUUID().toString();
        String checked = UUID.randomUUID().toString();
        put(checked, 1, null);

        client.transactWriteItems(request -> request.transactItems(
                item -> item.put(p -> p.tableName(table).item(Map.of("id", s(put), "n", n(1), "group", s("g-" + put),
                        "at", n(1)))),
                item -> item.conditionCheck(c -> c.tableName(table).key(itemKey(checked, 1))
                        .conditionExpression("attribute_exists(id)"))));

        assertThat(usageOf(new PartitionKey(table, "", put)).writeUnits()).isEqualTo(2);
        assertThat(usageOf(new PartitionKey(table, "", checked)).writeUnits()).as("its own put, then the check's 2")
                .isEqualTo(3);
        assertThat(usageOf(new PartitionKey(table, "BY_GROUP", "g-" + put)).writeUnits()).isEqualTo(1);
    }

    @Test
    void aThrottledRequestNamesTheTableOrIndexAndWhyAsDynamoDbDoesAndTheSdkRetriesIt() {
        start(TWO_WRITES);
        String group = "shared-" + UUID.randomUUID();
        put(UUID.randomUUID().toString(), 1, group);
        put(UUID.randomUUID().toString(), 1, group);

        assertThatThrownBy(() -> put(UUID.randomUUID().toString(), 1, group))
                .isInstanceOfSatisfying(ProvisionedThroughputExceededException.class, e -> {
                    assertThat(e.isThrottlingException()).as("the SDK's retry policy backs off and retries it").isTrue();
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.throttlingReasons()).singleElement().satisfies(reason -> {
                        assertThat(reason.reason()).isEqualTo("IndexWriteKeyRangeThroughputExceeded");
                        assertThat(reason.resource()).isEqualTo(
                                "arn:aws:dynamodb:us-east-1:000000000000:table/" + table + "/index/BY_GROUP");
                    });
                });
        String id = UUID.randomUUID().toString();
        proxy.partitions().reset();
        ProvisionedThroughputExceededException readThrottled = null;
        for (int read = 0; read <= 60 && readThrottled == null; read++) { // 30 read units, at least half a unit each
            try {
                get(id);
            } catch (ProvisionedThroughputExceededException e) {
                readThrottled = e;
            }
        }
        assertThat(readThrottled).isNotNull();
        assertThat(readThrottled.throttlingReasons()).singleElement().satisfies(reason -> {
            assertThat(reason.reason()).isEqualTo("TableReadKeyRangeThroughputExceeded");
            assertThat(reason.resource()).isEqualTo("arn:aws:dynamodb:us-east-1:000000000000:table/" + table);
        });
    }

    /**
     * DynamoDB cancels a transaction one of whose keys is throttled, with ThrottlingError on that action: it is not
     * a ProvisionedThroughputExceededException, so the SDK does not retry it, and nothing of it is written.
     */
    @Test
    void aThrottledTransactionIsCancelledWithThrottlingErrorOnTheActionsTheKeyRefused() {
        start(DynamoDbFaultProxy.Options.defaults().emulatingTransactions().measuredBy(clock::epochNanos)
                .withPartitionLimits(TWO_WRITES));
        String hot = UUID.randomUUID().toString();
        String cold = UUID.randomUUID().toString();
        put(hot, 1, null);
        put(hot, 2, null);

        assertThatThrownBy(() -> client.transactWriteItems(request -> request.transactItems(
                item -> item.put(p -> p.tableName(table).item(itemKey(cold, 1))),
                item -> item.put(p -> p.tableName(table).item(itemKey(hot, 3))))))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(e.isThrottlingException()).isFalse();
                    assertThat(e.cancellationReasons()).extracting(CancellationReason::code)
                            .containsExactly("None", "ThrottlingError");
                    assertThat(e.cancellationReasons().get(1).message())
                            .contains("Throughput exceeds the current capacity of your table or index");
                });

        assertThat(DYNALITE.get().client().getItem(request -> request.tableName(table).key(itemKey(cold, 1))).hasItem())
                .as("nothing of a cancelled transaction is written").isFalse();
        assertThat(proxy.partitions().throttled()).extracting(Usage::key)
                .containsExactly(new PartitionKey(table, "", hot));
    }

    @Test
    void aRequestTheEngineRefusesGetsTheEnginesAnswerUncharged() {
        start(TWO_WRITES);

        assertThatThrownBy(() -> client.putItem(request -> request.tableName("no-such-table-" + UUID.randomUUID())
                .item(Map.of("id", s("x"))))).isInstanceOf(ResourceNotFoundException.class);

        assertThat(proxy.partitions().usage()).isEmpty();
    }

    private Usage usageOf(PartitionKey key) {
        return proxy.partitions().usage().stream().filter(used -> used.key().equals(key)).findFirst()
                .orElse(new Usage(key, 0, 0, 0, 0, 0, 0));
    }

    /** An item in the index under {@code group}; none with {@code group} null. */
    private void put(String id, int n, String group) {
        Map<String, AttributeValue> item = group == null ? Map.of("id", s(id), "n", n(n))
                : Map.of("id", s(id), "n", n(n), "group", s(group), "at", n(n));
        client.putItem(request -> request.tableName(table).item(item));
    }

    private void get(String id) {
        client.getItem(request -> request.tableName(table).key(itemKey(id, 1)).consistentRead(true));
    }

    private static Map<String, AttributeValue> itemKey(String id, int n) {
        return Map.of("id", s(id), "n", n(n));
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue n(int value) {
        return AttributeValue.fromN(Integer.toString(value));
    }

    private static AttributeDefinition definition(String name) {
        return AttributeDefinition.builder().attributeName(name)
                .attributeType(name.equals("n") || name.equals("at") ? ScalarAttributeType.N : ScalarAttributeType.S)
                .build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }
}

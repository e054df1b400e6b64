package dev.verificationservice.testsupport.dynamodb.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * {@link IndexLag} through a real client: index queries see the table as it was at the last release, whatever
 * wrote it, while the table itself answers at once.
 */
@Timeout(30)
class IndexLagTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private DynamoDbFaultProxy proxy;
    private DynamoDbClient client;
    private String table;

    @BeforeEach
    void start() {
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(),
                DynamoDbFaultProxy.Options.defaults().emulatingTransactions().withIndexLag());
        client = Dynalite.client(proxy.endpoint());
        table = "index-lag-" + UUID.randomUUID();
        // The service's table shape, written out: this module knows no product class.
        client.createTable(request -> request.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(text("PK"), text("SK"), text("GSI1PK"), text("GSI1SK"))
                .keySchema(key("PK", KeyType.HASH), key("SK", KeyType.RANGE))
                .globalSecondaryIndexes(index -> index.indexName("GSI1")
                        .keySchema(key("GSI1PK", KeyType.HASH), key("GSI1SK", KeyType.RANGE))
                        .projection(projection -> projection.projectionType(ProjectionType.ALL))));
    }

    private static AttributeDefinition text(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    @AfterEach
    void stop() {
        client.close();
        proxy.close();
    }

    @Test
    void aNewItemAppearsInTheIndexOnlyWhenReleasedWhileTheTableHasItAtOnce() {
        put("A", "2026-01-01", 100);

        assertThat(indexed()).isEmpty();
        assertThat(client.getItem(request -> request.tableName(table).key(key("A")).consistentRead(true)).hasItem())
                .isTrue();
        assertThat(proxy.indexLag().held()).isEqualTo(1);

        assertThat(proxy.indexLag().release()).isEqualTo(1);
        assertThat(indexed()).containsExactly("A");
        assertThat(proxy.indexLag().held()).isZero();
    }

    @Test
    void aDeletedOrChangedItemStaysAsItWasInTheIndexUntilReleased() {
        put("A", "2026-01-01", 100);
        put("B", "2026-01-02", 100);
        proxy.indexLag().release();

        client.deleteItem(request -> request.tableName(table).key(key("A")));
        client.updateItem(request -> request.tableName(table).key(key("B"))
                .updateExpression("SET #ttl = :ttl").expressionAttributeNames(Map.of("#ttl", "ttl"))
                .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN("1"))));

        assertThat(indexed()).containsExactly("A", "B");
        assertThat(indexedFiltered(50)).as("B's old ttl is still what the index holds").containsExactly("A", "B");
        proxy.indexLag().release();
        assertThat(indexed()).containsExactly("B");
        assertThat(indexedFiltered(50)).as("B's new ttl reached the index").isEmpty();
    }

    @Test
    void batchWritesAndTransactionsLagToo() {
        client.batchWriteItem(request -> request.requestItems(Map.of(table, List.of(
                WriteRequest.builder().putRequest(r -> r.item(item("A", "2026-01-01", 100))).build(),
                WriteRequest.builder().putRequest(r -> r.item(item("B", "2026-01-02", 100))).build()))));
        client.transactWriteItems(request -> request.transactItems(TransactWriteItem.builder()
                .put(Put.builder().tableName(table).item(item("C", "2026-01-03", 100)).build()).build()));

        assertThat(indexed()).isEmpty();
        proxy.indexLag().release();
        assertThat(indexed()).containsExactly("A", "B", "C");
    }

    @Test
    void theLaggingViewPagesAndCountsCapacityUnderTheTablesName() {
        put("A", "2026-01-01", 100);
        put("B", "2026-01-02", 100);
        proxy.indexLag().release();

        QueryResponse first = client.query(request -> request.tableName(table).indexName("GSI1")
                .keyConditionExpression("GSI1PK = :pk").expressionAttributeValues(Map.of(":pk", AttributeValue.fromS("USER#u")))
                .limit(1).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(first.items()).extracting(item -> item.get("PK").s()).containsExactly("A");
        assertThat(first.consumedCapacity().tableName()).isEqualTo(table);
        QueryResponse second = client.query(request -> request.tableName(table).indexName("GSI1")
                .keyConditionExpression("GSI1PK = :pk").expressionAttributeValues(Map.of(":pk", AttributeValue.fromS("USER#u")))
                .exclusiveStartKey(first.lastEvaluatedKey()));
        assertThat(second.items()).extracting(item -> item.get("PK").s()).containsExactly("B");
    }

    private void put(String id, String sortKey, long ttl) {
        client.putItem(request -> request.tableName(table).item(item(id, sortKey, ttl)));
    }

    private static Map<String, AttributeValue> item(String id, String sortKey, long ttl) {
        return Map.of("PK", AttributeValue.fromS(id), "SK", AttributeValue.fromS(id),
                "GSI1PK", AttributeValue.fromS("USER#u"), "GSI1SK", AttributeValue.fromS(sortKey),
                "ttl", AttributeValue.fromN(Long.toString(ttl)));
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("PK", AttributeValue.fromS(id), "SK", AttributeValue.fromS(id));
    }

    private List<String> indexed() {
        return client.query(request -> request.tableName(table).indexName("GSI1")
                        .keyConditionExpression("GSI1PK = :pk")
                        .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS("USER#u"))))
                .items().stream().map(item -> item.get("PK").s()).toList();
    }

    /** The indexed items whose ttl is after {@code now}. */
    private List<String> indexedFiltered(long now) {
        return client.query(request -> request.tableName(table).indexName("GSI1")
                        .keyConditionExpression("GSI1PK = :pk").filterExpression("#ttl > :now")
                        .expressionAttributeNames(Map.of("#ttl", "ttl"))
                        .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS("USER#u"),
                                ":now", AttributeValue.fromN(Long.toString(now)))))
                .items().stream().map(item -> item.get("PK").s()).toList();
    }
}

package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.store.VerificationStore;
import dev.verificationservice.store.contract.AbstractVerificationStoreContractTest;
import dev.verificationservice.store.contract.MutableClock;
import dev.verificationservice.table.ItemAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * The contract suite on dynalite, started by the build, plus what only the DynamoDB store has: table
 * creation and shape checks, the registration transaction's request, and consumed capacity.
 */
class DynamoDbVerificationStoreTest extends AbstractVerificationStoreContractTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static volatile Optional<String> missingTransactions;

    private String tableName;

    private DynamoDbClient client() {
        return DYNALITE.get().client();
    }

    @Override
    protected VerificationStore openStore(MutableClock clock) {
        tableName = "verification-" + UUID.randomUUID();
        new DynamoDbTableAdmin(client(), tableName).createTable();
        // dynalite ignores ReturnValuesOnConditionCheckFailure, so a failed condition is followed by a read.
        return new DynamoDbVerificationStore(client(), tableName, new ConsumedCapacityRecorder(), false);
    }

    @Override
    protected void putRawItem(Map<String, Object> item) {
        client().putItem(request -> request.tableName(tableName).item(DynamoDbItems.toAttributeValues(item)));
    }

    @Override
    protected List<Map<String, Object>> allRawItems() {
        List<Map<String, Object>> items = new ArrayList<>();
        ScanRequest request = ScanRequest.builder().tableName(tableName).build();
        ScanResponse response;
        do {
            response = client().scan(request);
            response.items().forEach(item -> items.add(DynamoDbItems.fromAttributeValues(item)));
            request = request.toBuilder().exclusiveStartKey(response.lastEvaluatedKey()).build();
        } while (response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty());
        return items;
    }

    @Override
    protected Optional<String> missingTransactions() {
        if (missingTransactions == null) {
            missingTransactions = probe("TransactWriteItems",
                    "the embedded store runs this test", () -> client().transactWriteItems(TransactWriteItemsRequest
                    .builder().transactItems(TransactWriteItem.builder().put(Put.builder().tableName(tableName)
                            .item(Map.of(ItemAttributes.PK, AttributeValue.fromS("PROBE"),
                                    ItemAttributes.SK, AttributeValue.fromS("PROBE"))).build()).build()).build()));
        }
        return missingTransactions;
    }

    /** Empty when the engine runs the operation; the skip reason when it answers UnknownOperationException. */
    private static Optional<String> probe(String operation, String coveredBy, Runnable call) {
        try {
            call.run();
            return Optional.empty();
        } catch (DynamoDbException e) {
            String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
            if ("UnknownOperationException".equals(code)) {
                return Optional.of("dynalite has no " + operation + " (UnknownOperationException); " + coveredBy);
            }
            throw e;
        }
    }

    @Test
    void theRegistrationTransactionPutsTheTokenAndItsAuditEntryEachOnlyIfNew() {
        DeviceToken token = new DeviceToken("laptop-1", "digest-1", "dave", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        AuditEntry added = new AuditEntry("dave", START, "00ff", AuditEventType.DEVICE_ADDED, Map.of("tokenId", "digest-1"),
                Optional.empty(), Optional.empty(), Optional.of("laptop-1"), true, Optional.empty(),
                Optional.of(START.plus(Duration.ofDays(90))));

        TransactWriteItemsRequest request = ((DynamoDbVerificationStore) store).registerDeviceRequest(token, added);

        assertThat(request.clientRequestToken()).isEqualTo("00ff");
        assertThat(request.transactItems()).hasSize(2).allSatisfy(item -> {
            assertThat(item.put()).isNotNull();
            assertThat(item.put().tableName()).isEqualTo(tableName);
            assertThat(item.put().conditionExpression()).isEqualTo("attribute_not_exists(PK)");
        });
        Map<String, AttributeValue> device = request.transactItems().get(0).put().item();
        assertThat(device.get("PK").s()).isEqualTo("DEVICE#laptop-1");
        assertThat(device.get("SK").s()).isEqualTo("TOKEN#digest-1");
        assertThat(device.get("GSI1PK").s()).isEqualTo("USER#dave");
        assertThat(device.get("GSI1SK").s()).isEqualTo("DEVICE#laptop-1#digest-1");
        assertThat(device.get("ttl").n()).isEqualTo(Long.toString(START.plus(Duration.ofDays(30)).getEpochSecond()));
        Map<String, AttributeValue> audit = request.transactItems().get(1).put().item();
        assertThat(audit.get("PK").s()).isEqualTo("USER#dave");
        assertThat(audit.get("SK").s()).isEqualTo("AUDIT#2026-11-30T10:00:00.000Z#00ff");
        assertThat(audit.get("eventType").s()).isEqualTo("DEVICE_ADDED");
    }

    @Test
    void registeringOnAnEngineWithoutTransactionsFailsClearlyAndWritesNothing() {
        assumeTrue(missingTransactions().isPresent(), "the engine has TransactWriteItems");
        DeviceToken token = new DeviceToken("laptop-1", "digest-1", "dave", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        AuditEntry added = new AuditEntry("dave", START, "00ff", AuditEventType.DEVICE_ADDED, Map.of(),
                Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), Optional.empty());

        assertThatThrownBy(() -> store.registerDevice(token, added))
                .hasMessageContaining("nothing was written").hasMessageContaining("UnknownOperationException");
        assertThat(allRawItems()).isEmpty();
    }

    @Test
    void aNewTableHasTheLayoutAndLacksOnlyTtlUntilItIsEnabled() {
        DynamoDbTableAdmin admin = new DynamoDbTableAdmin(client(), tableName);

        assertThat(admin.shapeDifferences()).singleElement().asString().contains("TTL is").contains("'ttl'");
        assertThat(admin.createTable()).isEqualTo(DynamoDbTableAdmin.CreateOutcome.ALREADY_EXISTS);
        var table = client().describeTable(request -> request.tableName(tableName)).table();
        assertThat(table.billingModeSummary().billingModeAsString()).isEqualTo("PAY_PER_REQUEST");
        assertThat(table.globalSecondaryIndexes()).singleElement().satisfies(index -> {
            assertThat(index.indexName()).isEqualTo("GSI1");
            assertThat(index.projection().projectionTypeAsString()).isEqualTo("ALL");
        });
    }

    @Test
    void aTableWithTtlEnabledPassesTheShapeCheck() {
        DynamoDbTableAdmin admin = new DynamoDbTableAdmin(client(), tableName);
        Optional<String> missing = probe("UpdateTimeToLive",
                "this check needs Amazon DynamoDB; the shape without TTL is checked above", admin::enableTimeToLive);
        assumeTrue(missing.isEmpty(), () -> missing.get());

        assertThat(admin.shapeDifferences()).isEmpty();
    }

    @Test
    void aTableOfAnotherShapeIsRefusedNamingEachDifference() {
        String other = "other-" + UUID.randomUUID();
        client().createTable(request -> request.tableName(other)
                .billingMode("PAY_PER_REQUEST")
                .attributeDefinitions(definition -> definition.attributeName("id").attributeType("S"))
                .keySchema(key -> key.attributeName("id").keyType(KeyType.HASH)));

        assertThatThrownBy(() -> new DynamoDbTableAdmin(client(), other).requireShape())
                .isInstanceOfSatisfying(TableShapeException.class, e -> assertThat(e.differences()).contains(
                        "the table has partition key id instead of PK",
                        "the table has sort key null instead of SK",
                        "global secondary index GSI1 is missing"))
                .hasMessageContaining("create-table");
        assertThat(new DynamoDbTableAdmin(client(), "no-such-table").shapeDifferences())
                .containsExactly("the table does not exist");
    }

    @Test
    void consumedCapacityIsRecordedPerAccessPattern() {
        String code = sendEmailCode("alice");
        verifyEmailCode("alice", code);

        Map<AccessPattern, ConsumedCapacityRecorder.Usage> usage =
                ((DynamoDbVerificationStore) store).consumedCapacity().snapshot();
        assertThat(usage).containsKeys(AccessPattern.INSERT_CODE, AccessPattern.CONSUME_CODE,
                AccessPattern.INVALIDATE_CODES, AccessPattern.FIND_CODES, AccessPattern.COUNT_RATE_LIMIT, AccessPattern.APPEND_AUDIT,
                AccessPattern.READ_RATE_LIMIT);
        assertThat(usage.get(AccessPattern.CONSUME_CODE).requests()).isEqualTo(1);
        assertThat(usage.get(AccessPattern.CONSUME_CODE).capacityUnits()).isPositive();
        assertThat(usage.get(AccessPattern.APPEND_AUDIT).requests()).isEqualTo(2);
    }
}

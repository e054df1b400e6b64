package dev.verificationservice.testsupport.dynamodb.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy.Options;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange.Outcome;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The proxy's {@code TransactWriteItems} emulation on dynalite, through a real {@link DynamoDbClient}: what the SDK
 * makes of its answers and what the engine holds afterwards (read past the proxy). It proves the emulation, not
 * DynamoDB.
 */
@Timeout(30)
class TransactionEmulationTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static String table;

    private final List<DynamoDbFaultProxy> proxies = new ArrayList<>();
    private final List<DynamoDbClient> clients = new ArrayList<>();
    private DynamoDbFaultProxy proxy;
    private String run;

    @BeforeAll
    static void createTable() {
        table = "transactions-" + UUID.randomUUID();
        DynamoDbClient engine = DYNALITE.get().client();
        engine.createTable(request -> request.tableName(table)
                .attributeDefinitions(
                        AttributeDefinition.builder().attributeName("PK").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("SK").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName("SK").keyType(KeyType.RANGE).build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
        engine.waiter().waitUntilTableExists(request -> request.tableName(table));
    }

    @BeforeEach
    void startProxy() {
        proxy = start(Options.defaults().emulatingTransactions());
        run = UUID.randomUUID().toString();
    }

    @AfterEach
    void close() {
        clients.forEach(DynamoDbClient::close);
        proxies.forEach(DynamoDbFaultProxy::close);
    }

    @Test
    void aTransactionOfTwoPutsWritesBothAndIsBilledTwicePerItem() {
        TransactWriteItemsResponse response = notRetrying().transactWriteItems(request -> request
                .transactItems(put(item("a", "v", "1")), put(item("b", "v", "2")))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));

        assertThat(inEngine("a")).contains(item("a", "v", "1"));
        assertThat(inEngine("b")).contains(item("b", "v", "2"));
        assertThat(response.consumedCapacity()).singleElement().isEqualTo(ConsumedCapacity.builder()
                .tableName(table).capacityUnits(4.0).build());
        assertThat(proxy.exchanges()).singleElement().satisfies(exchange -> {
            assertThat(exchange.operation()).isEqualTo("TransactWriteItems");
            assertThat(exchange.outcome()).isEqualTo(Outcome.FORWARDED);
        });
    }

    @Test
    void withoutReturnConsumedCapacityTheAnswerIsEmpty() {
        TransactWriteItemsResponse response = notRetrying().transactWriteItems(request -> request
                .transactItems(put(item("a", "v", "1"))));

        assertThat(response.hasConsumedCapacity()).isFalse();
        assertThat(inEngine("a")).isPresent();
    }

    @Test
    void aFailedConditionRestoresEveryEarlierItemAndNamesEachReasonWithTheOldItem() {
        putInEngine(item("updated", "v", "old"));
        putInEngine(item("taken", "v", "holder"));

        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                update("updated", "SET #v = :new", Map.of("#v", "v"), Map.of(":new", s("new")), null),
                put(item("absent", "v", "new")),
                putIfNew(item("taken", "v", "mine"), ReturnValuesOnConditionCheckFailure.ALL_OLD))))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("TransactionCanceledException");
                    assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("Transaction cancelled, please refer "
                            + "cancellation reasons for specific reasons [None, None, ConditionalCheckFailed]");
                    assertThat(e.cancellationReasons()).extracting(CancellationReason::code)
                            .containsExactly("None", "None", "ConditionalCheckFailed");
                    assertThat(e.cancellationReasons().get(0).hasItem()).isFalse();
                    assertThat(e.cancellationReasons().get(2).message()).isEqualTo("The conditional request failed");
                    assertThat(e.cancellationReasons().get(2).item()).isEqualTo(item("taken", "v", "holder"));
                });

        assertThat(inEngine("updated")).contains(item("updated", "v", "old"));
        assertThat(inEngine("absent")).isEmpty();
        assertThat(inEngine("taken")).contains(item("taken", "v", "holder"));
    }

    @Test
    void theCancellationAnswerIsDynamoDbsWithoutAChecksum() throws Exception {
        // Written in this attribute order, so that the old item comes back in it.
        assertThat(text(postRaw("{\"TransactItems\":[{\"Put\":{\"TableName\":\"" + table + "\",\"Item\":"
                + "{\"PK\":{\"S\":\"" + run + "#taken\"},\"SK\":{\"S\":\"ITEM\"},\"v\":{\"S\":\"holder\"}}}}]}")))
                .isEqualTo("{}");
        String body = "{\"TransactItems\":[{\"Put\":{\"TableName\":\"" + table + "\",\"Item\":" + itemJson("new")
                + "}},{\"Put\":{\"TableName\":\"" + table + "\",\"Item\":" + itemJson("taken")
                + ",\"ConditionExpression\":\"attribute_not_exists(PK)\","
                + "\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"}}]}";

        Http.Message answer = postRaw(body);

        assertThat(answer.head().status()).isEqualTo(400);
        assertThat(answer.head().header("Content-Type")).contains("application/x-amz-json-1.0");
        assertThat(answer.head().header("x-amz-crc32")).isEmpty();
        assertThat(answer.head().header("x-amzn-RequestId")).hasValueSatisfying(id -> assertThat(id).hasSize(52));
        assertThat(text(answer)).isEqualTo("{\"__type\":\"com.amazonaws.dynamodb.v20120810#TransactionCanceledException\","
                + "\"Message\":\"Transaction cancelled, please refer cancellation reasons for specific reasons "
                + "[None, ConditionalCheckFailed]\",\"CancellationReasons\":[{\"Code\":\"None\"},"
                + "{\"Code\":\"ConditionalCheckFailed\",\"Message\":\"The conditional request failed\",\"Item\":"
                + "{\"PK\":{\"S\":\"" + run + "#taken\"},\"SK\":{\"S\":\"ITEM\"},\"v\":{\"S\":\"holder\"}}}]}");
        assertThat(inEngine("new")).isEmpty();
    }

    @Test
    void aFailedConditionWithoutAllOldReturnsNoItem() {
        putInEngine(item("taken", "v", "holder"));

        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                putIfNew(item("taken", "v", "mine"), null))))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.cancellationReasons())
                        .singleElement().satisfies(reason -> {
                            assertThat(reason.code()).isEqualTo("ConditionalCheckFailed");
                            assertThat(reason.hasItem()).isFalse();
                        }));
    }

    @Test
    void aConsumeLikeTransactionUpdatesPutsAndGivesBackAndASecondOneFailsEveryCondition() {
        putInEngine(Map.of("PK", s(run + "#code"), "SK", s("ITEM"), "isUsed", AttributeValue.fromBool(false)));
        putInEngine(Map.of("PK", s(run + "#counter"), "SK", s("ITEM"), "count", n(2), "place#attempt-1", n(2)));

        TransactWriteItemsResponse response = notRetrying().transactWriteItems(consume("attempt-1", "audit-1"));

        assertThat(inEngine("code")).contains(Map.of("PK", s(run + "#code"), "SK", s("ITEM"),
                "isUsed", AttributeValue.fromBool(true), "consumedBy", s("attempt-1")));
        assertThat(inEngine("audit-1")).contains(item("audit-1", "eventType", "CODE_VERIFIED"));
        assertThat(inEngine("counter")).contains(Map.of("PK", s(run + "#counter"), "SK", s("ITEM"), "count", n(1)));
        assertThat(response.consumedCapacity()).singleElement()
                .satisfies(capacity -> assertThat(capacity.capacityUnits()).isEqualTo(6.0));

        assertThatThrownBy(() -> notRetrying().transactWriteItems(consume("attempt-2", "audit-1")))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(e.cancellationReasons()).extracting(CancellationReason::code).containsExactly(
                            "ConditionalCheckFailed", "ConditionalCheckFailed", "ConditionalCheckFailed");
                    assertThat(e.cancellationReasons().get(0).item()).containsEntry("consumedBy", s("attempt-1"));
                });
        assertThat(inEngine("counter")).contains(Map.of("PK", s(run + "#counter"), "SK", s("ITEM"), "count", n(1)));
    }

    @Test
    void aFailingConditionCheckCancelsAndAPassingOneLeavesAnAbsentItemAbsent() {
        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                conditionCheck("guard", "attribute_exists(PK)"), put(item("written", "v", "1")))))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.cancellationReasons())
                        .extracting(CancellationReason::code).containsExactly("ConditionalCheckFailed", "None"));
        assertThat(inEngine("written")).isEmpty();
        assertThat(inEngine("guard")).isEmpty();

        notRetrying().transactWriteItems(request -> request.transactItems(
                conditionCheck("guard", "attribute_not_exists(PK)"), put(item("written", "v", "1"))));
        assertThat(inEngine("written")).isPresent();
        assertThat(inEngine("guard")).as("the check's update leaves no item behind").isEmpty();
    }

    @Test
    void aPassingConditionCheckLeavesAnExistingItemUnchanged() {
        putInEngine(item("guard", "v", "kept"));

        notRetrying().transactWriteItems(request -> request.transactItems(
                conditionCheck("guard", "attribute_exists(PK)"), put(item("written", "v", "1"))));

        assertThat(inEngine("guard")).contains(item("guard", "v", "kept"));
        assertThat(inEngine("written")).isPresent();
    }

    @Test
    void aDeleteIsAppliedAndRestoredWhenALaterConditionFails() {
        putInEngine(item("deleted", "v", "1"));
        putInEngine(item("taken", "v", "holder"));

        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                delete("deleted"), putIfNew(item("taken", "v", "mine"), null))))
                .isInstanceOf(TransactionCanceledException.class);
        assertThat(inEngine("deleted")).contains(item("deleted", "v", "1"));

        notRetrying().transactWriteItems(request -> request.transactItems(delete("deleted")));
        assertThat(inEngine("deleted")).isEmpty();
    }

    @Test
    void anInvalidActionIsTheEnginesValidationErrorAfterRestoringEarlierItems() {
        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                put(item("first", "v", "1")),
                update("second", "SET #v = :missing", Map.of("#v", "v"), Map.of(":other", s("x")), null))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e).isNotInstanceOf(TransactionCanceledException.class);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                    assertThat(e.awsErrorDetails().errorMessage()).contains(":missing");
                });
        assertThat(inEngine("first")).isEmpty();
        assertThat(inEngine("second")).isEmpty();
    }

    @Test
    void requestsDynamoDbRefusesAreRefusedBeforeAnythingIsWritten() {
        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                put(item("twice", "v", "1")), delete("twice"))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                    assertThat(e.awsErrorDetails().errorMessage()).contains("multiple operations on one item");
                });
        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request
                .transactItems(put(item("long", "v", "1"))).clientRequestToken("x".repeat(37))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .contains("clientRequestToken").contains("36"));
        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request
                .transactItems(TransactWriteItem.builder().put(Put.builder().tableName("no-such-table")
                        .item(item("x", "v", "1")).build()).build())))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode())
                        .isEqualTo("ResourceNotFoundException"));
        assertThat(inEngine("twice")).isEmpty();
        assertThat(inEngine("long")).isEmpty();
    }

    @Test
    void theSameTokenAndRequestAgainSucceedsWithoutApplyingAndAnotherRequestIsAMismatch() {
        TransactWriteItemsRequest increment = increment("token-1");

        notRetrying().transactWriteItems(increment);
        TransactWriteItemsResponse replay = notRetrying().transactWriteItems(increment);

        assertThat(counterInEngine()).contains(1L);
        assertThat(replay.consumedCapacity()).singleElement().satisfies(capacity ->
                assertThat(capacity.capacityUnits()).as("reading, not writing").isEqualTo(1.0));
        assertThatThrownBy(() -> notRetrying().transactWriteItems(increment.toBuilder()
                .returnConsumedCapacity(ReturnConsumedCapacity.NONE).transactItems(
                        increment.transactItems().get(0), put(item("more", "v", "1"))).build()))
                .isInstanceOfSatisfying(IdempotentParameterMismatchException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(400));
        assertThat(inEngine("more")).isEmpty();

        notRetrying().transactWriteItems(increment("token-2"));
        assertThat(counterInEngine()).as("another token is another transaction").contains(2L);
    }

    /** The unkind reading of DynamoDB's token window: a cancelled transaction's token is remembered too. */
    @Test
    void aCancelledTransactionsTokenAnswersTheSameCancellationAndAnotherRequestUnderItIsAMismatch() {
        putInEngine(item("taken", "v", "holder"));
        TransactWriteItemsRequest refused = TransactWriteItemsRequest.builder()
                .transactItems(putIfNew(item("taken", "v", "mine"), null)).clientRequestToken("token-1").build();
        assertThatThrownBy(() -> notRetrying().transactWriteItems(refused))
                .isInstanceOf(TransactionCanceledException.class);

        deleteInEngine("taken");
        assertThatThrownBy(() -> notRetrying().transactWriteItems(refused))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.cancellationReasons())
                        .extracting(CancellationReason::code).containsExactly("ConditionalCheckFailed"));
        assertThat(inEngine("taken")).as("the same request under the token does not run again").isEmpty();
        assertThatThrownBy(() -> notRetrying().transactWriteItems(refused.toBuilder()
                .transactItems(put(item("taken", "v", "mine"))).build()))
                .isInstanceOf(IdempotentParameterMismatchException.class);
        assertThat(inEngine("taken")).isEmpty();

        notRetrying().transactWriteItems(refused.toBuilder().clientRequestToken("token-2").build());
        assertThat(inEngine("taken")).as("a fresh token runs").contains(item("taken", "v", "mine"));
    }

    @Test
    void aPlainWriteToAnItemARunningTransactionHoldsIsATransactionConflictAndWritesNothing() throws Exception {
        putInEngine(item("held", "v", "old"));
        TransactionHold hold = proxy.holdTransactions(run + "#held");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<TransactWriteItemsResponse> running = pool.submit(() -> notRetrying().transactWriteItems(request ->
                    request.transactItems(update("held", "SET #v = :new", Map.of("#v", "v"), Map.of(":new", s("tx")),
                            null))));
            assertThat(hold.awaitHeld(1, Duration.ofSeconds(10))).isTrue();
            DynamoDbClient client = retrying();

            List<Runnable> writes = List.of(
                    () -> client.putItem(request -> request.tableName(table).item(item("held", "v", "put"))),
                    () -> client.updateItem(request -> request.tableName(table).key(key("held"))
                            .updateExpression("SET #v = :v").expressionAttributeNames(Map.of("#v", "v"))
                            .expressionAttributeValues(Map.of(":v", s("update")))),
                    () -> client.deleteItem(request -> request.tableName(table).key(key("held"))),
                    () -> client.batchWriteItem(request -> request.requestItems(Map.of(table, List.of(
                            WriteRequest.builder().putRequest(PutRequest.builder().item(item("other", "v", "1"))
                                    .build()).build(),
                            WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(key("held")).build())
                                    .build())))));
            for (Runnable write : writes) {
                assertThatThrownBy(write::run).isInstanceOfSatisfying(TransactionConflictException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(400));
            }
            assertThat(proxy.operations()).as("the SDK does not retry it")
                    .containsExactly("TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem");
            client.putItem(request -> request.tableName(table).item(item("free", "v", "1")));

            hold.release();
            running.get();
            assertThat(inEngine("held")).contains(item("held", "v", "tx"));
            assertThat(inEngine("other")).isEmpty();
            client.deleteItem(request -> request.tableName(table).key(key("held")));
            assertThat(inEngine("held")).as("free again once the transaction answered").isEmpty();
        } finally {
            hold.release();
            pool.shutdownNow();
        }
    }

    @Test
    void aSecondTransactionOnAHeldItemIsCancelledWithTransactionConflictAndARetryOfTheRunningOneIsInProgress()
            throws Exception {
        TransactionHold hold = proxy.holdTransactions("token-held");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            TransactWriteItemsRequest first = increment("token-held");
            Future<TransactWriteItemsResponse> running = pool.submit(() -> notRetrying().transactWriteItems(first));
            assertThat(hold.awaitHeld(1, Duration.ofSeconds(10))).isTrue();

            assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request.transactItems(
                    put(item("elsewhere", "v", "1")),
                    update("counter", "ADD #c :one", Map.of("#c", "c"), Map.of(":one", n(1)), null))))
                    .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.cancellationReasons())
                            .extracting(CancellationReason::code).containsExactly("None", "TransactionConflict"));
            assertThatThrownBy(() -> notRetrying().transactWriteItems(first))
                    .isInstanceOfSatisfying(TransactionInProgressException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(400));
            assertThat(inEngine("elsewhere")).isEmpty();

            hold.release();
            running.get();
            notRetrying().transactWriteItems(first);
            assertThat(counterInEngine()).as("applied once; the token's replay after it answered is a no-op").contains(1L);
        } finally {
            hold.release();
            pool.shutdownNow();
        }
    }

    @Test
    void withoutTokenMemoryTheReplayRunsAgainAndFailsItsCondition() {
        DynamoDbFaultProxy forgetful = start(Options.defaults().emulatingTransactions().withoutClientRequestTokenMemory());
        DynamoDbClient client = client(forgetful, config -> config.retryStrategy(AwsRetryStrategy.doNotRetry()));
        TransactWriteItemsRequest once = TransactWriteItemsRequest.builder()
                .transactItems(putIfNew(item("once", "v", "1"), ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .clientRequestToken("token-1").build();

        client.transactWriteItems(once);

        assertThatThrownBy(() -> client.transactWriteItems(once))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(e.cancellationReasons()).extracting(CancellationReason::code)
                            .containsExactly("ConditionalCheckFailed");
                    assertThat(e.cancellationReasons().get(0).item()).isEqualTo(item("once", "v", "1"));
                });
    }

    @Test
    void aTokenIsForgottenAfterTheMemoryEnds() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        DynamoDbFaultProxy brief = start(Options.defaults().emulatingTransactions()
                .withClientRequestTokenMemory(Duration.ofMillis(200)).measuredBy(nanos::get));
        DynamoDbClient client = client(brief, config -> config.retryStrategy(AwsRetryStrategy.doNotRetry()));

        client.transactWriteItems(increment("token-1"));
        client.transactWriteItems(increment("token-1"));
        assertThat(counterInEngine()).contains(1L);
        nanos.addAndGet(Duration.ofMillis(300).toNanos());

        client.transactWriteItems(increment("token-1"));
        assertThat(counterInEngine()).contains(2L);
    }

    @Test
    void aDroppedAnswerIsAppliedAndTheSdkRetryIsAnsweredByTheTokenWithoutApplyingAgain() {
        FaultHandle drop = proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        retrying().transactWriteItems(increment("token-1").toBuilder()
                .transactItems(increment("token-1").transactItems().get(0), putIfNew(item("audit", "v", "1"), null))
                .build());

        assertThat(counterInEngine()).contains(1L);
        assertThat(inEngine("audit")).isPresent();
        assertThat(drop.applied()).isEqualTo(1);
        assertThat(proxy.operations()).containsExactly("TransactWriteItems", "TransactWriteItems");
        assertThat(proxy.exchanges()).extracting(Exchange::outcome)
                .containsExactly(Outcome.ANSWER_DROPPED, Outcome.FORWARDED);
    }

    @Test
    void aDroppedAnswerWithoutTokenMemoryMakesTheSdkRetryFailItsConditionThoughItWasApplied() {
        DynamoDbFaultProxy forgetful = start(Options.defaults().emulatingTransactions().withoutClientRequestTokenMemory());
        forgetful.inject(Fault.dropAnswer("TransactWriteItems"));

        assertThatThrownBy(() -> client(forgetful, config -> { }).transactWriteItems(request -> request
                .transactItems(putIfNew(item("audit", "v", "1"), null)).clientRequestToken("token-1")))
                .isInstanceOf(TransactionCanceledException.class);
        assertThat(inEngine("audit")).isPresent();
    }

    @Test
    void throttlingATransactionAnswersWithoutRunningIt() {
        proxy.inject(Fault.throttle("TransactWriteItems"));

        assertThatThrownBy(() -> notRetrying().transactWriteItems(request -> request
                .transactItems(put(item("a", "v", "1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.isThrottlingException()).isTrue());
        assertThat(inEngine("a")).isEmpty();
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.THROTTLED);
    }

    @Test
    void withoutTheOptionTransactionsReachTheEngineWhichHasNone() {
        DynamoDbFaultProxy plain = start(Options.defaults());

        assertThatThrownBy(() -> client(plain, config -> config.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .transactWriteItems(request -> request.transactItems(put(item("a", "v", "1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode())
                        .isEqualTo("UnknownOperationException"));
    }

    /**
     * Transfers between two items run while other clients read both items in one BatchGetItem: each read sees
     * both items of the same transfer or neither, never one without the other, and failed transfers leave no
     * trace in between either.
     */
    @Test
    void noRequestThroughTheProxySeesATransactionHalfDone() throws Exception {
        putInEngine(Map.of("PK", s(run + "#from"), "SK", s("ITEM"), "n", n(1000)));
        putInEngine(Map.of("PK", s(run + "#to"), "SK", s("ITEM"), "n", n(0)));
        DynamoDbClient client = retrying();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<List<Long>>> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                readers.add(pool.submit(() -> {
                    List<Long> sums = new ArrayList<>();
                    while (writing.get()) {
                        var items = client.batchGetItem(request -> request.requestItems(Map.of(table,
                                software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder()
                                        .keys(key("from"), key("to")).consistentRead(true).build())))
                                .responses().get(table);
                        sums.add(items.stream().mapToLong(item -> Long.parseLong(item.get("n").n())).sum());
                    }
                    return sums;
                }));
            }
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        // Concurrent transfers on the same items cancel one another (TransactionConflict), as on
                        // DynamoDB: each is sent until it commits.
                        while (!committed(() -> client.transactWriteItems(transfer(1, "attribute_exists(#n)")))) {
                            Thread.onSpinWait();
                        }
                        // A transfer whose condition fails on its second item after the first was applied.
                        assertThatThrownBy(() -> client.transactWriteItems(transfer(1, "attribute_not_exists(#n)")))
                                .isInstanceOf(TransactionCanceledException.class);
                    }
                }));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
            writing.set(false);
            List<Long> sums = new ArrayList<>();
            for (Future<List<Long>> reader : readers) {
                sums.addAll(reader.get());
            }
            assertThat(sums).isNotEmpty().containsOnly(1000L);
        } finally {
            writing.set(false);
            pool.shutdownNow();
        }
        assertThat(inEngine("from")).hasValueSatisfying(item -> assertThat(item.get("n")).isEqualTo(n(880)));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** True when the transaction committed; false when a concurrent one cancelled it (TransactionConflict only). */
    private static boolean committed(Runnable transaction) {
        try {
            transaction.run();
            return true;
        } catch (TransactionCanceledException e) {
            assertThat(e.cancellationReasons()).extracting(CancellationReason::code)
                    .contains("TransactionConflict").doesNotContain("ConditionalCheckFailed");
            return false;
        }
    }

    private DynamoDbFaultProxy start(Options options) {
        DynamoDbFaultProxy started = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(), options);
        proxies.add(started);
        return started;
    }

    private DynamoDbClient retrying() {
        return client(proxy, config -> { });
    }

    private DynamoDbClient notRetrying() {
        return client(proxy, config -> config.retryStrategy(AwsRetryStrategy.doNotRetry()));
    }

    private DynamoDbClient client(DynamoDbFaultProxy through, Consumer<ClientOverrideConfiguration.Builder> configuration) {
        DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(through.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(ApacheHttpClient.builder().build())
                .overrideConfiguration(configuration)
                .build();
        clients.add(client);
        return client;
    }

    /** Moves {@code amount} from "from" to "to"; the condition on "to" decides whether it commits. */
    private TransactWriteItemsRequest transfer(int amount, String toCondition) {
        return TransactWriteItemsRequest.builder().transactItems(
                update("from", "SET #n = #n - :amount", Map.of("#n", "n"), Map.of(":amount", n(amount)), null),
                TransactWriteItem.builder().update(Update.builder().tableName(table).key(key("to"))
                        .updateExpression("SET #n = #n + :amount").conditionExpression(toCondition)
                        .expressionAttributeNames(Map.of("#n", "n"))
                        .expressionAttributeValues(Map.of(":amount", n(amount))).build()).build())
                .build();
    }

    private TransactWriteItemsRequest increment(String token) {
        return TransactWriteItemsRequest.builder()
                .transactItems(update("counter", "ADD #c :one", Map.of("#c", "c"), Map.of(":one", n(1)), null))
                .clientRequestToken(token)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
    }

    private TransactWriteItemsRequest consume(String attemptId, String auditId) {
        return TransactWriteItemsRequest.builder().transactItems(
                        update("code", "SET #isUsed = :true, #consumedBy = :attempt",
                                Map.of("#isUsed", "isUsed", "#consumedBy", "consumedBy"),
                                Map.of(":true", AttributeValue.fromBool(true), ":false", AttributeValue.fromBool(false),
                                        ":attempt", s(attemptId)),
                                "attribute_exists(PK) AND #isUsed = :false"),
                        putIfNew(item(auditId, "eventType", "CODE_VERIFIED"), null),
                        update("counter", "SET #count = #count - :one REMOVE #place",
                                Map.of("#count", "count", "#place", "place#attempt-1"), Map.of(":one", n(1)),
                                "attribute_exists(#place)"))
                .clientRequestToken(attemptId)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
    }

    private TransactWriteItem put(Map<String, AttributeValue> item) {
        return TransactWriteItem.builder().put(Put.builder().tableName(table).item(item).build()).build();
    }

    private TransactWriteItem putIfNew(Map<String, AttributeValue> item, ReturnValuesOnConditionCheckFailure onFailure) {
        return TransactWriteItem.builder().put(Put.builder().tableName(table).item(item)
                .conditionExpression("attribute_not_exists(PK)")
                .returnValuesOnConditionCheckFailure(onFailure).build()).build();
    }

    /** An Update; with a condition, the code item's ReturnValuesOnConditionCheckFailure is ALL_OLD. */
    private TransactWriteItem update(String name, String expression, Map<String, String> names,
                                     Map<String, AttributeValue> values, String condition) {
        Update.Builder update = Update.builder().tableName(table).key(key(name)).updateExpression(expression)
                .expressionAttributeNames(names).expressionAttributeValues(values);
        if (condition != null) {
            update.conditionExpression(condition).returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
        }
        return TransactWriteItem.builder().update(update.build()).build();
    }

    private TransactWriteItem delete(String name) {
        return TransactWriteItem.builder().delete(Delete.builder().tableName(table).key(key(name)).build()).build();
    }

    private TransactWriteItem conditionCheck(String name, String condition) {
        return TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName(table).key(key(name))
                .conditionExpression(condition).build()).build();
    }

    /** An item of this test: {@code PK = <run>#<name>}, {@code SK = ITEM} and one string attribute. */
    private Map<String, AttributeValue> item(String name, String attribute, String value) {
        return Map.of("PK", s(run + "#" + name), "SK", s("ITEM"), attribute, s(value));
    }

    private String itemJson(String name) {
        return "{\"PK\":{\"S\":\"" + run + "#" + name + "\"},\"SK\":{\"S\":\"ITEM\"},\"v\":{\"S\":\"mine\"}}";
    }

    private Map<String, AttributeValue> key(String name) {
        return Map.of("PK", s(run + "#" + name), "SK", s("ITEM"));
    }

    /** Straight to dynalite, past the proxy. */
    private void putInEngine(Map<String, AttributeValue> item) {
        DYNALITE.get().client().putItem(request -> request.tableName(table).item(item));
    }

    private void deleteInEngine(String name) {
        DYNALITE.get().client().deleteItem(request -> request.tableName(table).key(key(name)));
    }

    private Optional<Map<String, AttributeValue>> inEngine(String name) {
        var response = DYNALITE.get().client().getItem(request -> request.tableName(table).key(key(name))
                .consistentRead(true));
        return response.hasItem() && !response.item().isEmpty() ? Optional.of(response.item()) : Optional.empty();
    }

    private Optional<Long> counterInEngine() {
        return inEngine("counter").map(item -> Long.parseLong(item.get("c").n()));
    }

    /**
     * A request as the SDK would send it, unsigned (dynalite checks only the Authorization header's form), on a
     * socket of its own that is closed afterwards.
     */
    private Http.Message postRaw(String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        Http.Head head = new Http.Head("POST / HTTP/1.1", List.of(
                new Http.Header("Host", proxy.endpoint().getAuthority()),
                new Http.Header("Content-Type", "application/x-amz-json-1.0"),
                new Http.Header("X-Amz-Target", "DynamoDB_20120810.TransactWriteItems"),
                new Http.Header("X-Amz-Date", "20261130T100000Z"),
                new Http.Header("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261130/us-east-1/dynamodb/"
                        + "aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000"),
                new Http.Header("Content-Length", Integer.toString(bytes.length)),
                new Http.Header("Connection", "close")));
        try (Socket socket = new Socket(proxy.endpoint().getHost(), proxy.endpoint().getPort())) {
            socket.setSoTimeout(10_000);
            Http.write(socket.getOutputStream(), head, bytes);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Http.Head answer = Http.readHead(in).orElseThrow();
            return Http.readResponse(in, answer, "POST");
        }
    }

    private static String text(Http.Message message) {
        return new String(message.body(), StandardCharsets.UTF_8);
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}

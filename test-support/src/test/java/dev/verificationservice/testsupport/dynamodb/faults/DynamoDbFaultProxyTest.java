package dev.verificationservice.testsupport.dynamodb.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange.Outcome;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;

/**
 * Each fault of {@link DynamoDbFaultProxy} against dynalite, through a real {@link DynamoDbClient} on the Apache
 * HTTP client, as the store uses it: what the SDK does with it and what the engine ends up holding.
 */
@Timeout(20)
class DynamoDbFaultProxyTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static String table;

    private DynamoDbFaultProxy proxy;
    private final List<DynamoDbClient> clients = new ArrayList<>();
    private String id;

    @BeforeAll
    static void createTable() {
        table = "fault-proxy-" + UUID.randomUUID();
        DynamoDbClient engine = DYNALITE.get().client();
        engine.createTable(request -> request.tableName(table)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id")
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
        engine.waiter().waitUntilTableExists(request -> request.tableName(table));
    }

    @BeforeEach
    void startProxy() {
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint());
        id = UUID.randomUUID().toString();
    }

    @AfterEach
    void closeProxy() {
        clients.forEach(DynamoDbClient::close);
        proxy.close();
    }

    @Test
    void passesRequestsAndAnswersThroughOnOneKeptAliveConnectionAndRecordsEach() {
        DynamoDbClient client = notRetrying();

        client.putItem(request -> request.tableName(table).item(Map.of("id", s(id), "note", s("ünïcode ✓"))));
        Map<String, AttributeValue> item = client.getItem(request -> request.tableName(table).key(key(id))
                .consistentRead(true)).item();
        client.getItem(request -> request.tableName(table).key(key(id)));

        assertThat(item).containsEntry("note", s("ünïcode ✓")); // and the SDK accepted the engine's x-amz-crc32
        assertThat(proxy.operations()).containsExactly("PutItem", "GetItem", "GetItem");
        assertThat(proxy.exchanges()).allSatisfy(exchange -> {
            assertThat(exchange.outcome()).isEqualTo(Outcome.FORWARDED);
            assertThat(exchange.forwarded()).isTrue();
            assertThat(exchange.fault()).isEmpty();
        });
        assertThat(proxy.exchanges()).extracting(Exchange::sequence).isSorted().doesNotHaveDuplicates();
        assertThat(proxy.count("GetItem")).isEqualTo(2);
        assertThat(proxy.acceptedConnections()).isEqualTo(1);

        proxy.clearRecording();
        assertThat(proxy.exchanges()).isEmpty();
    }

    @Test
    void aDroppedAnswerIsAppliedAndTheSdkRetryAppliesTheWriteAgain() {
        FaultHandle drop = proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains("ADD #c"));

        increment(retrying()); // the SDK sees no failure at all

        assertThat(counterInEngine()).contains(2L);
        assertThat(proxy.operations()).containsExactly("UpdateItem", "UpdateItem");
        assertThat(proxy.exchanges()).extracting(Exchange::outcome)
                .containsExactly(Outcome.ANSWER_DROPPED, Outcome.FORWARDED);
        assertThat(proxy.exchanges().get(0).fault()).contains(drop.fault());
        assertThat(drop.applied()).isEqualTo(1);
        assertThat(drop.isActive()).isFalse();
        assertThat(proxy.acceptedConnections()).isEqualTo(2); // the SDK reconnected after the dropped connection
    }

    @Test
    void aDroppedAnswerWithoutRetriesIsAClientErrorThoughTheWriteWasApplied() {
        proxy.inject(Fault.dropAnswer("UpdateItem"));

        assertThatThrownBy(() -> increment(notRetrying()))
                .isInstanceOf(SdkClientException.class)
                .isNotInstanceOf(SdkServiceException.class);

        assertThat(counterInEngine()).contains(1L);
    }

    @Test
    void aThrottledRequestIsNotForwardedAndTheSdkRetriesIt() {
        proxy.inject(Fault.throttle("PutItem"));

        retrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id))));

        assertThat(proxy.count("PutItem")).isEqualTo(2);
        assertThat(proxy.forwardedCount("PutItem")).isEqualTo(1);
        assertThat(proxy.exchanges()).extracting(Exchange::outcome)
                .containsExactly(Outcome.THROTTLED, Outcome.FORWARDED);
        assertThat(itemInEngine(id)).isPresent();
    }

    @ParameterizedTest
    @EnumSource(Fault.ThrottleError.class)
    void throttlingWithoutRetriesSurfacesAsTheThrottlingError(Fault.ThrottleError error) {
        proxy.inject(Fault.throttle("PutItem", error).always());

        assertThatThrownBy(() -> notRetrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id)))))
                .isInstanceOf(error == Fault.ThrottleError.THROTTLING ? ThrottlingException.class
                        : ProvisionedThroughputExceededException.class)
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo(error.code());
                    assertThat(e.awsErrorDetails().errorMessage()).isEqualTo(error.message());
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.isThrottlingException()).isTrue();
                });
        assertThat(proxy.count("PutItem")).isEqualTo(1);
        assertThat(itemInEngine(id)).isEmpty();
    }

    @Test
    void aServerErrorWithoutRetriesSurfacesAsInternalFailure() {
        proxy.inject(Fault.serverError("PutItem"));

        assertThatThrownBy(() -> notRetrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id)))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InternalFailure");
                    assertThat(e.statusCode()).isEqualTo(500);
                    assertThat(e.isThrottlingException()).isFalse();
                });
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.SERVER_ERROR);
        assertThat(itemInEngine(id)).isEmpty();
    }

    /** The client sees the engine's answer changed, its CRC32 right; an error answer goes through as it is. */
    @Test
    void aRewrittenAnswerReachesTheClientAndAnErrorGoesThroughUnchanged() {
        retrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id), "note", s("engine"))));
        proxy.inject(Fault.rewriteAnswer("GetItem", "note rewritten", answer -> Map.of("Item",
                Map.of("id", Map.of("S", id), "note", Map.of("S", "rewritten")))).times(2));

        Map<String, AttributeValue> item = notRetrying().getItem(request -> request.tableName(table).key(key(id))).item();
        assertThatThrownBy(() -> notRetrying().getItem(request -> request.tableName("no-such-table").key(key(id))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode())
                        .isEqualTo("ResourceNotFoundException"));

        assertThat(item).containsEntry("note", s("rewritten"));
        assertThat(itemInEngine(id)).hasValueSatisfying(stored -> assertThat(stored).containsEntry("note", s("engine")));
        assertThat(proxy.exchanges()).extracting(Exchange::outcome)
                .containsExactly(Outcome.FORWARDED, Outcome.ANSWER_REWRITTEN, Outcome.ANSWER_REWRITTEN);
    }

    @Test
    void aServerErrorIsRetriedByTheSdk() {
        proxy.inject(Fault.serverError("PutItem").times(2));

        retrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id))));

        assertThat(proxy.exchanges()).extracting(Exchange::outcome)
                .containsExactly(Outcome.SERVER_ERROR, Outcome.SERVER_ERROR, Outcome.FORWARDED);
        assertThat(itemInEngine(id)).isPresent();
    }

    @Test
    void aResetConnectionWithoutRetriesIsAClientErrorAndNothingIsApplied() {
        proxy.inject(Fault.reset("PutItem"));

        assertThatThrownBy(() -> notRetrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id)))))
                .isInstanceOf(SdkClientException.class)
                .isNotInstanceOf(SdkServiceException.class)
                .hasStackTraceContaining("Connection reset");
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.RESET);
        assertThat(itemInEngine(id)).isEmpty();
    }

    @Test
    void aDelayLongerThanTheAttemptTimeoutEndsTheAttemptBeforeTheDelayEnds() {
        DynamoDbClient impatient = client(config -> config.retryStrategy(AwsRetryStrategy.doNotRetry())
                .apiCallAttemptTimeout(Duration.ofMillis(300)));
        // Far longer than the attempt timeout, however slow the machine: only the timeout can end the call early.
        Duration delay = Duration.ofSeconds(30);
        proxy.inject(Fault.delay("GetItem", delay));

        long started = System.nanoTime();
        assertThatThrownBy(() -> impatient.getItem(request -> request.tableName(table).key(key(id))))
                .isInstanceOf(ApiCallAttemptTimeoutException.class);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(delay);
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.DELAYED);
    }

    @Test
    void aShortDelayOnlyMakesTheAnswerLate() {
        Duration delay = Duration.ofMillis(300);
        proxy.inject(Fault.delay("PutItem", delay));

        long started = System.nanoTime();
        notRetrying().putItem(request -> request.tableName(table).item(Map.of("id", s(id))));

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(delay);
        assertThat(itemInEngine(id)).isPresent();
        assertThat(proxy.exchanges()).singleElement().satisfies(exchange -> {
            assertThat(exchange.outcome()).isEqualTo(Outcome.DELAYED);
            assertThat(exchange.forwarded()).isTrue();
        });
    }

    @Test
    void stoppingDuringADelayFailsTheCallAtOnceWithoutForwarding() throws Exception {
        DynamoDbClient client = notRetrying();
        FaultHandle delay = proxy.inject(Fault.delay("PutItem", Duration.ofSeconds(10)));
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> client.putItem(request -> request
                .tableName(table).item(Map.of("id", s(id)))));

        assertThat(delay.awaitApplied(1, Duration.ofSeconds(5))).as("the request reached the proxy").isTrue();
        proxy.stop();

        assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(SdkClientException.class);
        assertThat(itemInEngine(id)).isEmpty();
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.DELAYED);
    }

    @Test
    void whileStoppedConnectionsAreRefusedAndAfterResumeTheEngineAnswersAgain() throws Exception {
        DynamoDbClient client = notRetrying();
        client.putItem(request -> request.tableName(table).item(Map.of("id", s(id))));

        proxy.stop();

        assertThat(proxy.isStopped()).isTrue();
        assertThatThrownBy(() -> client.getItem(request -> request.tableName(table).key(key(id))))
                .isInstanceOf(SdkClientException.class)
                .isNotInstanceOf(SdkServiceException.class);
        assertThatThrownBy(() -> client.getItem(request -> request.tableName(table).key(key(id))))
                .isInstanceOf(SdkClientException.class)
                .hasRootCauseInstanceOf(ConnectException.class);
        assertThatThrownBy(() -> new Socket(proxy.endpoint().getHost(), proxy.endpoint().getPort()).close())
                .isInstanceOf(ConnectException.class);

        proxy.resume();

        assertThat(proxy.isStopped()).isFalse();
        assertThat(client.getItem(request -> request.tableName(table).key(key(id)).consistentRead(true)).item())
                .containsEntry("id", s(id));
        // A request already read off a pooled connection at the moment of stopping is recorded as refused, never
        // forwarded: what reaches the engine is the claim.
        assertThat(proxy.exchanges()).filteredOn(Exchange::forwarded).extracting(Exchange::operation)
                .as("no request reaches the engine while stopped").containsExactly("PutItem", "GetItem");
    }

    /**
     * The cause of an earlier flake: closing a listening socket that a thread is blocked on in accept only marks it
     * closed, and the kernel went on completing handshakes until that thread woke up, so a client right after
     * {@code stop()} was sometimes accepted and left without an answer ({@code NoHttpResponseException}). On a
     * busy machine the old proxy let about one connection in a hundred through; this asks many times.
     */
    @Test
    void everyConnectionMadeAfterStopReturnsIsRefused() throws Exception {
        int accepted = 0;
        for (int round = 0; round < 500; round++) {
            proxy.stop();
            try (Socket socket = new Socket(proxy.endpoint().getHost(), proxy.endpoint().getPort())) {
                accepted++;
            } catch (ConnectException refused) {
                // what a stopped engine does
            }
            proxy.resume();
        }

        assertThat(accepted).as("connections accepted after stop() returned").isZero();
    }

    @Test
    void aFaultHitsOnlyMatchingRequestsAndOnlyAsOftenAsAsked() {
        DynamoDbClient client = notRetrying();
        String other = UUID.randomUUID().toString();
        FaultHandle handle = proxy.inject(Fault.serverError("PutItem").whenBodyContains(id).times(2));

        client.putItem(request -> request.tableName(table).item(Map.of("id", s(other))));
        client.getItem(request -> request.tableName(table).key(key(id)));
        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> client.putItem(request -> request.tableName(table).item(Map.of("id", s(id)))))
                    .isInstanceOf(DynamoDbException.class);
        }
        client.putItem(request -> request.tableName(table).item(Map.of("id", s(id))));

        assertThat(handle.applied()).isEqualTo(2);
        assertThat(handle.remaining()).isZero();
        assertThat(proxy.faults()).isEmpty();
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.FORWARDED,
                Outcome.FORWARDED, Outcome.SERVER_ERROR, Outcome.SERVER_ERROR, Outcome.FORWARDED);
        assertThat(itemInEngine(id)).isPresent();
    }

    @Test
    void aFaultOnAnyOperationLastsUntilRemovedOrCleared() {
        DynamoDbClient client = notRetrying();
        FaultHandle always = proxy.inject(Fault.throttle(Fault.ANY_OPERATION).always());

        assertThatThrownBy(() -> client.getItem(request -> request.tableName(table).key(key(id))))
                .isInstanceOf(DynamoDbException.class);
        assertThatThrownBy(() -> client.putItem(request -> request.tableName(table).item(Map.of("id", s(id)))))
                .isInstanceOf(DynamoDbException.class);
        assertThat(always.remaining()).isEqualTo(Fault.ALWAYS);
        always.remove();
        client.getItem(request -> request.tableName(table).key(key(id)));

        proxy.inject(Fault.serverError("GetItem").always());
        proxy.inject(Fault.reset("PutItem").always());
        assertThat(proxy.faults()).hasSize(2);
        proxy.clear();
        client.getItem(request -> request.tableName(table).key(key(id)));
        client.putItem(request -> request.tableName(table).item(Map.of("id", s(id))));

        assertThat(always.applied()).isEqualTo(2);
        assertThat(proxy.faults()).isEmpty();
        assertThat(proxy.exchanges()).extracting(Exchange::outcome).containsExactly(Outcome.THROTTLED,
                Outcome.THROTTLED, Outcome.FORWARDED, Outcome.FORWARDED, Outcome.FORWARDED);
    }

    @Test
    void concurrentCallsAreAllForwardedAndCounted() throws Exception {
        DynamoDbClient client = retrying();
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String itemId = id + "-" + i;
                calls.add(callers.submit(() -> client.putItem(request -> request.tableName(table)
                        .item(Map.of("id", s(itemId))))));
            }
            for (Future<?> call : calls) {
                call.get();
            }
        } finally {
            callers.shutdownNow();
        }

        assertThat(proxy.count("PutItem")).isEqualTo(40);
        assertThat(proxy.exchanges()).extracting(Exchange::sequence).doesNotHaveDuplicates().hasSize(40);
        assertThat(itemInEngine(id + "-39")).isPresent();
    }

    @Test
    void faultsExplainWhatIsWrongWithThem() {
        assertThatThrownBy(() -> Fault.throttle("DynamoDB_20120810.UpdateItem"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'UpdateItem'");
        assertThatThrownBy(() -> Fault.reset("PutItem").times(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> Fault.delay("PutItem", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> DynamoDbFaultProxy.start(java.net.URI.create("https://dynamodb.us-east-1.amazonaws.com")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain HTTP");
        assertThat(Fault.dropAnswer("UpdateItem").whenBodyContains("ADD #c").times(2))
                .hasToString("DROP_ANSWER on UpdateItem when body contains \"ADD #c\", 2 times");
        proxy.close();
        assertThatThrownBy(proxy::stop).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The SDK's default retries, as the store runs. */
    private DynamoDbClient retrying() {
        return client(config -> { });
    }

    private DynamoDbClient notRetrying() {
        return client(config -> config.retryStrategy(AwsRetryStrategy.doNotRetry()));
    }

    private DynamoDbClient client(Consumer<ClientOverrideConfiguration.Builder> configuration) {
        DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(proxy.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(ApacheHttpClient.builder().build())
                .overrideConfiguration(configuration)
                .build();
        clients.add(client);
        return client;
    }

    private void increment(DynamoDbClient client) {
        client.updateItem(request -> request.tableName(table).key(key(id))
                .updateExpression("ADD #c :one")
                .expressionAttributeNames(Map.of("#c", "c"))
                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
    }

    /** Read straight from dynalite, past the proxy. */
    private Optional<Long> counterInEngine() {
        return itemInEngine(id).map(item -> Long.parseLong(item.get("c").n()));
    }

    private static Optional<Map<String, AttributeValue>> itemInEngine(String itemId) {
        var response = DYNALITE.get().client().getItem(request -> request.tableName(table).key(key(itemId))
                .consistentRead(true));
        return response.hasItem() && !response.item().isEmpty() ? Optional.of(response.item()) : Optional.empty();
    }

    private static Map<String, AttributeValue> key(String itemId) {
        return Map.of("id", s(itemId));
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }
}

package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeDigests;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.contract.AbstractVerificationStoreContractTest;
import dev.verificationservice.store.contract.AnswerLosingStore;
import dev.verificationservice.Verification;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.DynamoDbUnits;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionHold;
import dev.verificationservice.testsupport.time.MutableClock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import dev.verificationservice.table.ItemAttributes;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * The contract suite on dynalite, started by the build, plus what only the DynamoDB store has: table
 * creation and shape checks, the registration transaction's request, consumed capacity, and lost answers of
 * its transactions.
 *
 * <p>dynalite has no TransactWriteItems, so the store talks to it through the test proxy that emulates them
 * ({@link Dynalite#transactional()}); every request of these tests goes through that proxy. The tests that
 * prove the atomicity of a transaction itself are skipped on it: they would prove the emulation.
 */
class DynamoDbVerificationStoreTest extends AbstractVerificationStoreContractTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    /** The contract tests that prove a transaction's atomicity itself, skipped where transactions are emulated. */
    private static final Set<String> ATOMICITY_TESTS = Set.of(
            "aRefusedRegistrationLeavesNeitherTokenNorAuditEntry",
            "aConsumeWhoseAuditEntryCannotBeWrittenLeavesTheCodeUnusedAndTheCountAsItWas");

    /** Whether the engine itself runs TransactWriteItems: probed once per run, past the proxy. */
    private static volatile Boolean engineHasTransactions;

    private static final RateLimitPolicy FIVE = new RateLimitPolicy(5, Duration.ofMinutes(15));
    private static final Instant WINDOW_START = RateLimiter.windowStart(START, FIVE.window());

    private String tableName;
    private Optional<String> currentTest = Optional.empty();
    private final List<AutoCloseable> closeAfterTest = new ArrayList<>();

    /** The store's client: through the proxy that emulates TransactWriteItems. */
    private DynamoDbClient client() {
        return DYNALITE.get().transactional().client();
    }

    @BeforeAll
    static void atomicityTestsExist() {
        Set<String> contract = AbstractVerificationStoreContractTest.contractTestNames();
        assertThat(contract).as("the contract tests skipped on emulated transactions").containsAll(ATOMICITY_TESTS);
    }

    @BeforeEach
    void rememberTest(TestInfo test) {
        currentTest = test.getTestMethod().map(Method::getName);
    }

    @AfterEach
    void closeExtras() throws Exception {
        for (AutoCloseable closeable : closeAfterTest) {
            closeable.close();
        }
    }

    @Override
    protected VerificationStore openStore(MutableClock clock) {
        tableName = "verification-" + UUID.randomUUID();
        new DynamoDbTableAdmin(client(), tableName).createTable();
        // dynalite ignores ReturnValuesOnConditionCheckFailure, so a failed condition is followed by a read.
        return new DynamoDbVerificationStore(client(), tableName, new ConsumedCapacityRecorder(), false);
    }

    /**
     * A second store on the table with a client of its own, through the same proxy: its emulated transactions meet
     * the first store's as DynamoDB's would.
     */
    @Override
    protected VerificationStore openAnotherInstance(MutableClock clock) {
        DynamoDbClient client = Dynalite.client(DYNALITE.get().transactional().endpoint());
        closeAfterTest.add(client);
        return new DynamoDbVerificationStore(client, tableName, new ConsumedCapacityRecorder(), false);
    }

    /** The shared proxy's GSI1 lags: it catches up only here. */
    @Override
    public void indexCatchesUp() {
        DYNALITE.get().transactional().releaseIndexes();
    }

    @Override
    public void putRawItem(Map<String, Object> item) {
        client().putItem(request -> request.tableName(tableName).item(DynamoDbItems.toAttributeValues(item)));
    }

    @Override
    public List<Map<String, Object>> allRawItems() {
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

    /**
     * Empty where the engine itself runs TransactWriteItems. On dynalite, which has none, the test proxy emulates
     * them: every test runs on that emulation except those that prove atomicity itself, which DynamoDB guarantees
     * and the emulation only imitates.
     */
    @Override
    public Optional<String> missingTransactions() {
        if (engineHasTransactions() || currentTest.filter(ATOMICITY_TESTS::contains).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("TransactWriteItems is emulated by the test proxy on dynalite (dynalite has none): "
                + "atomicity is DynamoDB's guarantee, proven here only on the embedded store");
    }

    /** Asks the raw engine, past the proxy, with a transaction that writes nothing anywhere. */
    private boolean engineHasTransactions() {
        if (engineHasTransactions == null) {
            engineHasTransactions = probe("TransactWriteItems", "", () -> DYNALITE.get().client().transactWriteItems(
                    TransactWriteItemsRequest.builder().transactItems(TransactWriteItem.builder().conditionCheck(
                            ConditionCheck.builder().tableName(tableName)
                                    .key(Map.of(ItemAttributes.PK, AttributeValue.fromS("PROBE"),
                                            ItemAttributes.SK, AttributeValue.fromS("PROBE")))
                                    .conditionExpression("attribute_exists(PK)").build()).build()).build()))
                    .isEmpty();
        }
        return engineHasTransactions;
    }

    /**
     * The store on this test's table through a fault proxy of its own in front of the shared one (so its writes reach
     * the same transaction emulation and lagging indexes), which drops the answer of the next request carrying an
     * audit item once asked: the engine applied it, and the SDK sends it again.
     */
    @Override
    public Optional<AnswerLosingStore> answerLosingStore() {
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(DYNALITE.get().transactional().endpoint());
        closeAfterTest.add(proxy);
        VerificationStore through = storeThrough(proxy);
        return Optional.of(new AnswerLosingStore() {
            @Override
            public VerificationStore store() {
                return through;
            }

            @Override
            public void loseNextAnswer() {
                proxy.inject(Fault.dropAnswer(Fault.ANY_OPERATION).whenBodyContains(ItemAttributes.OUTBOX_PK));
            }

            @Override
            public void loseNextAnswerTo(String operation, String text) {
                proxy.inject(Fault.dropAnswer(operation).whenBodyContains(text));
            }

            @Override
            public int answersLost() {
                return (int) proxy.exchanges().stream()
                        .filter(exchange -> exchange.outcome() == Exchange.Outcome.ANSWER_DROPPED).count();
            }
        });
    }

    /** Empty when the engine runs the operation; the skip reason when it answers UnknownOperationException. */
    private static Optional<String> probe(String operation, String coveredBy, Runnable call) {
        try {
            call.run();
            return Optional.empty();
        } catch (TransactionCanceledException e) {
            return Optional.empty(); // the engine ran the transaction and its condition failed
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

        TransactWriteItemsRequest request = ((DynamoDbVerificationStore) store).devices.registerDeviceRequest(token, added);

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
        assumeTrue(!engineHasTransactions(), "the engine has TransactWriteItems");
        VerificationStore withoutTransactions = new DynamoDbVerificationStore(DYNALITE.get().client(), tableName,
                new ConsumedCapacityRecorder(), false);
        DeviceToken token = new DeviceToken("laptop-1", "digest-1", "dave", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        AuditEntry added = new AuditEntry("dave", START, "00ff", AuditEventType.DEVICE_ADDED, Map.of(),
                Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), Optional.empty());

        assertThatThrownBy(() -> withoutTransactions.devices().registerDevice(token, added))
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
        assertThat(table.globalSecondaryIndexes()).extracting(index -> index.indexName())
                .containsExactlyInAnyOrder("GSI1", "OUTBOX");
        assertThat(table.globalSecondaryIndexes()).allSatisfy(index ->
                assertThat(index.projection().projectionTypeAsString()).isEqualTo("ALL"));
    }

    @Test
    void aTableFromBeforeTheOutboxIndexIsNamedAndCreateTableAddsTheIndex() {
        String older = "older-" + UUID.randomUUID();
        var request = DynamoDbTableAdmin.createTableRequest(older);
        client().createTable(request.toBuilder()
                .attributeDefinitions(request.attributeDefinitions().stream()
                        .filter(definition -> !definition.attributeName().startsWith("OUTBOX")).toList())
                .globalSecondaryIndexes(request.globalSecondaryIndexes().stream()
                        .filter(index -> index.indexName().equals("GSI1")).toList())
                .build());
        DynamoDbTableAdmin admin = new DynamoDbTableAdmin(client(), older);

        assertThat(admin.shapeDifferences(false)).singleElement().asString()
                .contains("global secondary index OUTBOX is missing", "run create-table again", "UpdateTable");
        List<UpdateTableRequest> sent = new ArrayList<>();
        DynamoDbClient recording = Dynalite.client(DYNALITE.get().endpoint(), List.of(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateTableRequest update) {
                    sent.add(update);
                }
            }
        }));
        try (recording) {
            DynamoDbTableAdmin updating = new DynamoDbTableAdmin(recording, older);
            try {
                assertThat(updating.createTable()).isEqualTo(DynamoDbTableAdmin.CreateOutcome.INDEX_ADDED);
                assertThat(updating.shapeDifferences(false)).isEmpty();
            } catch (software.amazon.awssdk.services.dynamodb.model.DynamoDbException dynaliteWantsThroughput) {
                // dynalite validates UpdateTable as for a provisioned table (and would not create the index anyway),
                // while DynamoDB refuses throughput on an on-demand table: the request is what can be checked here.
                assertThat(dynaliteWantsThroughput).hasMessageContaining("provisionedThroughput");
            }
        }
        assertThat(sent).singleElement().satisfies(update -> assertThat(update.globalSecondaryIndexUpdates())
                .singleElement().satisfies(change -> {
                    assertThat(change.create().indexName()).isEqualTo("OUTBOX");
                    assertThat(change.create().projection().projectionTypeAsString()).isEqualTo("ALL");
                }));
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
    void aConsumeWhoseAnswerWasLostIsOneConsumptionThanksToTheToken() {
        consumeLosingTheFirstAnswer(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
    }

    /** After DynamoDB's 10 minutes the engine runs the retry again: the store recognises its own consumedBy. */
    @Test
    void aConsumeRetriedAfterTheTokenIsForgottenIsRecognisedByItsAttemptId() {
        consumeLosingTheFirstAnswer(DynamoDbFaultProxy.Options.defaults().emulatingTransactions()
                .withoutClientRequestTokenMemory());
    }

    private void consumeLosingTheFirstAnswer(DynamoDbFaultProxy.Options options) {
        sendEmailCode("lou");
        indexCatchesUp();
        String digest = store.codes().findCodes("lou", CodeType.EMAIL_VERIFICATION).get(0).digest();
        DynamoDbFaultProxy proxy = proxy(options);
        VerificationStore lossy = storeThrough(proxy);
        Place place = new Place(new CounterWindow("lou", "VERIFY_EMAIL_VERIFICATION", WINDOW_START,
                WINDOW_START.plus(Duration.ofHours(2))), "guess-1");
        assertThat(lossy.counters().takePlace(place, 5)).isEqualTo(1);
        AuditEntry verified = verification.audit().newEntry("lou", AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                Map.of(), ClientContext.none());
        proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        assertThat(lossy.codes().consumeCode(new CodeConsumption(digest, "lou", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START,
                "consume-1", verified, Optional.of(place)))).isEqualTo(new ConsumeOutcome.Consumed());

        assertThat(proxy.exchanges()).filteredOn(exchange -> exchange.operation().equals("TransactWriteItems"))
                .extracting(Exchange::outcome)
                .containsExactly(Exchange.Outcome.ANSWER_DROPPED, Exchange.Outcome.FORWARDED);
        assertThat(store.codes().findCurrentCode("lou", CodeType.EMAIL_VERIFICATION, digest)).hasValueSatisfying(code -> assertThat(code.used()).isTrue());
        assertThat(auditTypes("lou")).containsExactly(AuditEventType.CODE_VERIFIED, AuditEventType.CODE_SENT);
        assertThat(verification.rateLimiter().current("lou", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isZero();
    }

    @Test
    void aRegistrationWhoseAnswerWasLostIsWrittenOnceAndReportedDone() {
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        VerificationStore lossy = storeThrough(proxy);
        DeviceToken token = new DeviceToken("laptop-1", "digest-1", "dave", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        AuditEntry added = new AuditEntry("dave", START, "00ff", AuditEventType.DEVICE_ADDED, Map.of(),
                Optional.empty(), Optional.empty(), Optional.of("laptop-1"), true, Optional.empty(), Optional.empty());
        proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        lossy.devices().registerDevice(token, added);

        assertThat(proxy.count("TransactWriteItems")).isEqualTo(2);
        // Read through the test's own proxy, whose index is the engine's: the shared one saw none of these writes.
        assertThat(lossy.devices().findDevices("dave", START)).singleElement()
                .satisfies(device -> assertThat(device.tokenId()).isEqualTo("digest-1"));
        assertThat(auditTypes("dave")).containsExactly(AuditEventType.DEVICE_ADDED);
    }

    private void registerDevices(String userId, int count) {
        for (int i = 1; i <= count; i++) {
            // Token ids and entry ids of this user alone: the registration's ClientRequestToken is made from them.
            DeviceToken token = new DeviceToken("device-" + i, "digest-" + userId + "-" + i, userId, "WEB", Optional.empty(),
                    Optional.empty(), START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
            store.devices().registerDevice(token, new AuditEntry(userId, START, "0" + userId.length() + i, AuditEventType.DEVICE_ADDED, Map.of(),
                    Optional.empty(), Optional.empty(), Optional.of("device-" + i), true, Optional.empty(),
                    Optional.empty()));
        }
    }

    /** DynamoDB may process part of a BatchWriteItem (throttling): the store sends the rest again until done. */
    @Test
    void aBatchDeleteSendsAgainWhatDynamoDbLeftUnprocessed() {
        registerDevices("una", 3);
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults());
        VerificationStore throttled = storeThrough(proxy);
        proxy.inject(Fault.leaveUnprocessed(1).times(2));

        assertThat(throttled.devices().deleteDevices("una", Optional.empty())).hasSize(3);

        assertThat(proxy.exchanges()).filteredOn(exchange -> exchange.operation().equals("BatchWriteItem"))
                .extracting(Exchange::outcome).containsExactly(Exchange.Outcome.PARTLY_PROCESSED,
                        Exchange.Outcome.PARTLY_PROCESSED, Exchange.Outcome.FORWARDED);
        assertThat(throttled.devices().findDevices("una", START)).isEmpty();
    }

    @Test
    void aBatchDeleteThatStaysUnprocessedFailsSayingSoAfterItsAttempts() {
        registerDevices("vera", 2);
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults());
        VerificationStore throttled = storeThrough(proxy);
        proxy.inject(Fault.leaveUnprocessed(0).always());

        assertThatThrownBy(() -> throttled.devices().deleteDevices("vera", Optional.empty())).isInstanceOf(StoreException.class)
                .hasMessageContaining("2 deletes unprocessed after 8 attempts").hasMessageContaining("retry later");

        assertThat(proxy.count("BatchWriteItem")).isEqualTo(8);
        assertThat(throttled.devices().findDevices("vera", START)).hasSize(2);
    }

    // Conflicts with running transactions (issue 22): the proxy keeps a transaction running until released.

    /**
     * A client that keeps using a stolen device secret cannot make revoke-all fail: no device use holds the
     * revoke-all marker in a transaction any more, so its write never meets TransactionConflictException.
     */
    @Test
    void revokeAllSucceedsWhileAStolenDeviceSecretIsUsedInALoopAndTheDeviceThenNoLongerVerifies() throws Exception {
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        Verification through = Verification.builder().store(storeThrough(proxy)).keys(keys).sender(outbox).clock(clock)
                .build();
        RegisteredDevice stolen = through.devices().register(new DeviceRegistration("zoe", "stolen-1", "WEB",
                Optional.empty(), Optional.empty(), ClientContext.none()));
        // Every transaction on the user's revoke-all marker is kept running while revoke-all writes the marker.
        TransactionHold marker = proxy.holdTransactions(TableKeys.devicesRevoked("zoe").pk());
        AtomicBoolean looping = new AtomicBoolean(true);
        CountDownLatch progress = new CountDownLatch(1);
        AtomicInteger uses = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> loops = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                loops.add(pool.submit(() -> {
                    while (looping.get()) {
                        through.devices().verify("stolen-1", stolen.secret(), ClientContext.none());
                        if (uses.incrementAndGet() >= 40) {
                            progress.countDown();
                        }
                    }
                    return null;
                }));
            }
            pool.submit(() -> {
                if (marker.awaitHeld(1, Duration.ofSeconds(30))) {
                    progress.countDown(); // a use's transaction holds the marker right now
                }
                return null;
            });
            assertThat(progress.await(30, TimeUnit.SECONDS)).as("the loop is running").isTrue();

            int revoked = through.devices().revokeAll("zoe", ClientContext.none());

            marker.release();
            looping.set(false);
            for (Future<?> loop : loops) {
                loop.get(30, TimeUnit.SECONDS);
            }
            assertThat(revoked).isEqualTo(1);
        } finally {
            marker.release();
            looping.set(false);
            pool.shutdownNow();
        }
        assertThat(through.devices().verify("stolen-1", stolen.secret(), ClientContext.none()).valid()).isFalse();
    }

    /**
     * A consume whose transaction is still running when the SDK's attempt times out: the retries under the same
     * token meet TransactionInProgressException until the SDK's call times out; the store sends it again under
     * that token until DynamoDB answers, and the caller gets the consume it made, never USED.
     */
    @Test
    void aConsumeStillRunningAfterTheAttemptTimeoutIsSentAgainUnderItsTokenAndIsConsumedNeverUsed() throws Exception {
        sendEmailCode("kim");
        indexCatchesUp();
        String digest = store.codes().findCodes("kim", CodeType.EMAIL_VERIFICATION).get(0).digest();
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        DynamoDbClient impatient = DynamoDbClient.builder()
                .endpointOverride(proxy.endpoint())
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("test", "test")))
                .httpClient(software.amazon.awssdk.http.apache.ApacheHttpClient.builder().build())
                .overrideConfiguration(config -> config.apiCallAttemptTimeout(Duration.ofMillis(300))
                        .apiCallTimeout(Duration.ofSeconds(1)))
                .build();
        closeAfterTest.add(0, impatient);
        VerificationStore slow = new DynamoDbVerificationStore(impatient, tableName, new ConsumedCapacityRecorder(), false);
        AuditEntry verified = verification.audit().newEntry("kim", AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                Map.of(), ClientContext.none());
        TransactionHold hold = proxy.holdTransactions("consume-slow");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<ConsumeOutcome> outcome = pool.submit(() -> slow.codes().consumeCode(new CodeConsumption(digest, "kim",
                    CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START, "consume-slow", verified, Optional.empty())));
            assertThat(hold.awaitHeld(1, Duration.ofSeconds(10))).isTrue();
            // More than the SDK's own retries within one call (it retries TransactionInProgressException as
            // throttling, until its call timeout): the store's own sends under the same token.
            assertThat(hold.awaitTurnedAway(3, Duration.ofSeconds(20)))
                    .as("retries under the same token met the running transaction").isTrue();

            hold.release();

            assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo(new ConsumeOutcome.Consumed());
        } finally {
            hold.release();
            pool.shutdownNow();
        }
        assertThat(store.codes().findCurrentCode("kim", CodeType.EMAIL_VERIFICATION, digest)).hasValueSatisfying(code -> assertThat(code.used()).isTrue());
        assertThat(auditTypes("kim")).containsExactly(AuditEventType.CODE_VERIFIED, AuditEventType.CODE_SENT);
    }

    /** Deleting a code (a failed delivery, an invalidation) while a consume of it runs: sent again, not a 503. */
    @Test
    void aCodeDeletedWhileItsConsumeIsRunningIsDeletedOnceTheConsumeAnswered() throws Exception {
        sendEmailCode("lin");
        indexCatchesUp();
        VerificationCode sent = store.codes().findCodes("lin", CodeType.EMAIL_VERIFICATION).get(0);
        String digest = sent.digest();
        AuditEntry verified = verification.audit().newEntry("lin", AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                Map.of(), ClientContext.none());
        whileAConsumeIsHeld(new CodeConsumption(digest, "lin", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START, "consume-held",
                verified, Optional.empty()), conflicting -> conflicting.codes().deleteCode(sent));

        assertThat(store.codes().findCurrentCode("lin", CodeType.EMAIL_VERIFICATION, digest)).isEmpty();
    }

    /** A give-back while another verification's consume gives back a place of the same counter: both happen. */
    @Test
    void aPlaceGivenBackWhileAConsumeGivesBackAnotherOfTheSameCounterIsGivenBack() throws Exception {
        sendEmailCode("lee");
        indexCatchesUp();
        String digest = store.codes().findCodes("lee", CodeType.EMAIL_VERIFICATION).get(0).digest();
        Place consuming = new Place(new CounterWindow("lee", "VERIFY_EMAIL_VERIFICATION", WINDOW_START,
                WINDOW_START.plus(Duration.ofHours(2))), "guess-1");
        Place refused = new Place(consuming.window(), "guess-2");
        store.counters().takePlace(consuming, 5);
        store.counters().takePlace(refused, 5);
        AuditEntry verified = verification.audit().newEntry("lee", AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                Map.of(), ClientContext.none());
        whileAConsumeIsHeld(new CodeConsumption(digest, "lee", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START, "consume-held",
                verified, Optional.of(consuming)), conflicting -> conflicting.counters().givePlaceBack(refused));

        assertThat(verification.rateLimiter().current("lee", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isZero();
    }

    /**
     * Runs the consume through a proxy of its own and keeps its transaction running until {@code conflicting}
     * (a plain write to one of its items, on the same proxy) has met it once; then lets it answer. Both must
     * succeed: the consume, and the write, sent again by the store.
     */
    private void whileAConsumeIsHeld(CodeConsumption consumption,
                                     java.util.function.Consumer<VerificationStore> conflicting) throws Exception {
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        VerificationStore through = storeThrough(proxy);
        TransactionHold hold = proxy.holdTransactions(consumption.attemptId());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<ConsumeOutcome> consumed = pool.submit(() -> through.codes().consumeCode(consumption));
            assertThat(hold.awaitHeld(1, Duration.ofSeconds(10))).isTrue();
            Future<?> write = pool.submit(() -> conflicting.accept(through));
            assertThat(hold.awaitTurnedAway(1, Duration.ofSeconds(10))).as("the write met the running consume").isTrue();

            hold.release();

            write.get(30, TimeUnit.SECONDS);
            assertThat(consumed.get(30, TimeUnit.SECONDS)).isEqualTo(new ConsumeOutcome.Consumed());
        } finally {
            hold.release();
            pool.shutdownNow();
        }
    }

    /**
     * A consume whose give-back fails its condition (the counter was reset meanwhile) is sent again without it,
     * a different request: under a token of its own, since DynamoDB refuses another request under a used token
     * (IdempotentParameterMismatchException) and the proxy remembers a cancelled one.
     */
    @Test
    void aConsumeRetriedWithoutItsGiveBackIsSentUnderAFreshTokenAndConsumes() {
        sendEmailCode("max");
        indexCatchesUp();
        String digest = store.codes().findCodes("max", CodeType.EMAIL_VERIFICATION).get(0).digest();
        Place place = new Place(new CounterWindow("max", "VERIFY_EMAIL_VERIFICATION", WINDOW_START,
                WINDOW_START.plus(Duration.ofHours(2))), "guess-1");
        store.counters().takePlace(place, 5);
        store.counters().deleteCounters("max", "VERIFY_EMAIL_VERIFICATION");
        CodeConsumption consumption = new CodeConsumption(digest, "max", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START,
                "consume-reset-" + UUID.randomUUID().toString().substring(0, 8), verification.audit().newEntry("max",
                        AuditEventType.CODE_VERIFIED, true, Optional.empty(), Map.of(), ClientContext.none()),
                Optional.of(place));

        assertThat(store.codes().consumeCode(consumption)).isEqualTo(new ConsumeOutcome.Consumed());

        DynamoDbVerificationStore dynamo = (DynamoDbVerificationStore) store;
        assertThat(dynamo.codes.consumeRequest(consumption, true, 1).clientRequestToken())
                .isEqualTo(consumption.attemptId())
                .isNotEqualTo(dynamo.codes.consumeRequest(consumption, false, 2).clientRequestToken());
        assertThat(store.codes().findCurrentCode("max", CodeType.EMAIL_VERIFICATION, digest)).hasValueSatisfying(code -> assertThat(code.used()).isTrue());
    }

    /** A NUMERIC code is held by its user's code slot: no item of its own, nothing in GSI1. */
    @Test
    void aNumericCodeLivesInItsUsersSlotWithNoItemOrIndexEntryOfItsOwn() {
        String code = sendEmailCode("sly");

        List<Map<String, Object>> items = allRawItems();
        assertThat(items).noneMatch(item -> String.valueOf(item.get(ItemAttributes.PK)).startsWith("CODE#"));
        Map<String, Object> slot = items.stream().filter(item -> TableKeys.currentCode("sly",
                CodeType.EMAIL_VERIFICATION).sk().equals(item.get(ItemAttributes.SK))).findFirst().orElseThrow();
        assertThat(slot).containsKey(ItemAttributes.CODE).doesNotContainKey(ItemAttributes.GSI1PK)
                .containsEntry(ItemAttributes.CODE, slot.get(ItemAttributes.CURRENT));
        assertThat(slot.values()).as("the code is kept as its HMAC only").doesNotContain(code);
        assertThat(verifyEmailCode("sly", code).valid()).isTrue();
    }

    /** The slot's one write, its answer lost and sent again by the SDK: its own retry, one usable code. */
    @Test
    void aSlotWriteWhoseAnswerWasLostIsItsOwnRetry() {
        String first = sendEmailCode("rex");
        clock().advance(Duration.ofMinutes(2));
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        Verification lossy = on(storeThrough(proxy));
        proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains(TableKeys.currentCode("rex",
                CodeType.EMAIL_VERIFICATION).sk()));

        assertThat(lossy.codes().issue(CodeRequest.of("rex", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "rex@example.com"))).isInstanceOf(IssueResult.Issued.class);

        assertThat(proxy.exchanges()).extracting(Exchange::outcome).contains(Exchange.Outcome.ANSWER_DROPPED);
        assertThat(outbox().messages()).as("one message for the send, however many tries").hasSize(2);
        String second = latestCode();
        assertThat(verifyEmailCode("rex", first).valid()).as("the code it replaced").isFalse();
        assertThat(verifyEmailCode("rex", second).valid()).isTrue();
    }

    /**
     * A table the previous release wrote: a NUMERIC code as an item of its own, named by the marker that is now the
     * slot. It still checks and verifies; a new send makes it unusable and deletes its item.
     */
    @Test
    void aNumericCodeThePreviousReleaseWroteAsAnItemStillVerifiesAndANewSendDeletesIt() {
        putOldShapeCode("ola", "482913", clock().instant());
        putOldShapeCode("ora", "519374", clock().instant());

        assertThat(verification().codes().check(VerifyRequest.numeric("482913", "ola", CodeType.EMAIL_VERIFICATION))
                .valid()).isTrue();
        assertThat(verifyEmailCode("ola", "482913").valid()).isTrue();
        assertThat(verifyEmailCode("ola", "482913")).isInstanceOfSatisfying(VerificationResult.Invalid.class,
                invalid -> assertThat(invalid.reason()).isEqualTo(FailureReason.USED));

        clock().advance(Duration.ofMinutes(2));
        String fresh = sendEmailCode("ora");
        assertThat(allRawItems()).noneMatch(item -> String.valueOf(item.get(ItemAttributes.PK)).startsWith("CODE#")
                && "ora".equals(item.get(ItemAttributes.USER_ID)));
        assertThat(verifyEmailCode("ora", "519374").valid()).as("the old code, replaced").isFalse();
        assertThat(verifyEmailCode("ora", fresh).valid()).isTrue();
        assertThat(auditTypes("ora")).contains(AuditEventType.CODES_INVALIDATED);
    }

    /** The item and the marker the previous release wrote for a NUMERIC email code. */
    private void putOldShapeCode(String userId, String code, Instant createdAt) {
        VerificationCode old = new VerificationCode(CodeDigests.storedDigest(keys(), CodeFormat.NUMERIC, userId,
                CodeType.EMAIL_VERIFICATION, code, Optional.empty()), userId, CodeType.EMAIL_VERIFICATION,
                CodeFormat.NUMERIC, DeliveryMethod.EMAIL, "o***@example.com", false, createdAt,
                createdAt.plus(Duration.ofMinutes(15)));
        putRawItem(CodeItems.codeItem(old, "issue-of-the-previous-release"));
        putRawItem(CodeItems.currentCodeItem(old));
        indexCatchesUp();
    }

    /** A proxy of this test only, in front of the same engine and table; closed after the test. */
    private DynamoDbFaultProxy proxy(DynamoDbFaultProxy.Options options) {
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(), options);
        closeAfterTest.add(proxy);
        return proxy;
    }

    /** The store on this test's table through another proxy, with the SDK's default retries. */
    private VerificationStore storeThrough(DynamoDbFaultProxy proxy) {
        DynamoDbClient client = Dynalite.client(proxy.endpoint());
        closeAfterTest.add(0, client);
        return new DynamoDbVerificationStore(client, tableName, new ConsumedCapacityRecorder(), false);
    }

    @Test
    void consumedCapacityIsRecordedPerAccessPattern() {
        String code = sendEmailCode("alice");
        verifyEmailCode("alice", code);

        Map<AccessPattern, ConsumedCapacityRecorder.Usage> usage =
                ((DynamoDbVerificationStore) store).consumedCapacity().snapshot();
        assertThat(usage).containsKeys(AccessPattern.INSERT_CODE, AccessPattern.CONSUME_CODE,
                AccessPattern.COUNT_RATE_LIMIT, AccessPattern.APPEND_AUDIT, AccessPattern.READ_RATE_LIMIT,
                AccessPattern.CLAIM_COOLDOWN);
        // A NUMERIC code is one write of the user's code slot: no read of the earlier codes, no second write to keep
        // the newest.
        assertThat(usage.get(AccessPattern.INSERT_CODE).requests()).isEqualTo(1);
        assertThat(usage).doesNotContainKeys(AccessPattern.FIND_CODES, AccessPattern.KEEP_NEWEST_CODE);
        assertThat(usage.get(AccessPattern.CONSUME_CODE).requests()).isEqualTo(1);
        assertThat(usage.get(AccessPattern.CONSUME_CODE).capacityUnits()).isPositive();
        // CODE_SENT alone: CODE_VERIFIED is written by the consume transaction itself.
        assertThat(usage.get(AccessPattern.APPEND_AUDIT).requests()).isEqualTo(1);
    }

    /**
     * What an endpoint with nothing due costs each poll, and an empty listing of its deliveries: one query of each of
     * its shards, each reading nothing, so each at DynamoDB's least read (dynalite reports no units: they are
     * DynamoDB's rules applied to what was read). docs/performance.md quotes these.
     */
    @Test
    void anIdleEndpointCostsOneLeastReadOfEachShard() {
        String endpointId = "ep_0123456789abcdef";
        ConsumedCapacityRecorder recorder = ((DynamoDbVerificationStore) store).consumedCapacity();
        recorder.reset();

        assertThat(store.webhooks().dueDeliveries(endpointId, clock().instant(), 8)).isEmpty();
        assertThat(store.webhooks().deliveries(endpointId, START, clock().instant(), 50)).isEmpty();

        Map<AccessPattern, ConsumedCapacityRecorder.Usage> usage = recorder.snapshot();
        assertThat(usage.get(AccessPattern.OUTBOX).requests()).isEqualTo(TableKeys.DELIVERY_SHARDS).isEqualTo(16);
        assertThat(usage.get(AccessPattern.DELIVERY).requests()).isEqualTo(16);
        assertThat(16 * DynamoDbUnits.readUnits(List.of(), false)).as("the index, eventually consistent")
                .isEqualTo(8.0);
        assertThat(16 * DynamoDbUnits.readUnits(List.of(), true)).as("the table, consistent").isEqualTo(16.0);
    }
}

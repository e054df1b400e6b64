package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryOutcome;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.events.WebhookRepository.OutboxStats;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import dev.verificationservice.testsupport.dynamodb.faults.FaultHandle;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The outbox's {@value TableKeys#OUTBOX_SHARDS} event shards on DynamoDB: what a look of the relay reads (every shard
 * on an instance's first look, then the shards it wrote to and {@value OutboxLooks#ROTATION} in turn), the previous
 * release's events under {@code OUTBOX#EVENT#0..3} delivered after an upgrade, and the outbox stats' read bounded
 * whatever the backlog. Queries and the items they answer are counted by an interceptor on the store's client.
 */
class DynamoDbOutboxShardsTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");
    private static final String ENCRYPTION_KEY = EncryptionKeyRing.generateBase64Key(RANDOM);
    /** Looks that read every shard in turn, whatever the hints. */
    private static final int FULL_TURN = TableKeys.OUTBOX_SHARDS / OutboxLooks.ROTATION;

    private final MutableClock clock = new MutableClock(START);
    private final WebhookReceiver receiver = new WebhookReceiver();
    private final AtomicLong queries = new AtomicLong();
    private final AtomicLong itemsAnswered = new AtomicLong();
    private final List<AutoCloseable> closeAfterTest = new ArrayList<>();
    private String tableName;
    private DynamoDbClient counted;

    @BeforeEach
    void table() {
        tableName = "verification-" + UUID.randomUUID();
        new DynamoDbTableAdmin(DYNALITE.get().client(), tableName).createTable();
        counted = Dynalite.client(DYNALITE.get().endpoint(), List.of(new ExecutionInterceptor() {
            @Override
            public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
                if (context.response() instanceof QueryResponse query) {
                    queries.incrementAndGet();
                    itemsAnswered.addAndGet(query.count());
                }
            }
        }));
        closeAfterTest.add(counted);
    }

    @AfterEach
    void close() throws Exception {
        receiver.close();
        for (AutoCloseable closeable : closeAfterTest) {
            closeable.close();
        }
    }

    @Test
    void anInstancesFirstLookReadsEveryShardAnIdleOneTheRotationAndAWrittenEventIsReadAtTheNextLook() {
        DynamoDbVerificationStore store = subscribed(store());
        Verification verification = verification(store);

        assertThat(queriesOf(() -> store.webhooks().undeliveredEvents(100))).isEqualTo(TableKeys.OUTBOX_SHARDS);
        assertThat(queriesOf(() -> store.webhooks().undeliveredEvents(100))).as("an idle look")
                .isEqualTo(OutboxLooks.ROTATION);

        AuditEntry written = verification.audit().recordSuccess("ida", AuditEventType.DEVICE_REVOKED, Map.of(),
                ClientContext.none());
        List<AuditEntry> found = new ArrayList<>();
        assertThat(queriesOf(() -> found.addAll(store.webhooks().undeliveredEvents(100))))
                .isLessThanOrEqualTo(OutboxLooks.ROTATION + 1);
        assertThat(found).containsExactly(written);
    }

    @Test
    void anEventWhoseFanOutFailsStaysInTheOutboxWhileTheRestOfTheBatchGoesOut() {
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint());
        DynamoDbVerificationStore store = subscribed(storeBehind(proxy));
        Verification verification = verification(store);
        List<AuditEntry> written = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            written.add(verification.audit().recordSuccess("fan-" + i, AuditEventType.DEVICE_REVOKED, Map.of(),
                    ClientContext.none()));
        }
        List<AuditEntry> look = store.webhooks().undeliveredEvents(100);
        assertThat(look).containsExactlyInAnyOrderElementsOf(written);
        AuditEntry hot = look.get(0);
        // Every try of the first event's removal is throttled (the SDK's retries included): its shard is hot.
        FaultHandle hotShard = proxy.inject(Fault.throttle("UpdateItem").whenBodyContains(hot.entryId()).always());

        assertThatThrownBy(() -> store.webhooks().fanOut(look.stream()
                .map(entry -> new WebhookRepository.FanOut(entry, List.of())).toList()))
                .isInstanceOf(StoreException.class);
        hotShard.remove();

        assertThat(store.webhooks().undeliveredEvents(100)).as("the next look: the failed event only, its shard"
                + " read again").containsExactly(hot);
    }

    @Test
    void aWrittenShardIsReadOnTheNextLooksWhileTheIndexLagsAndTheRotationFindsWhatTheHintsMissed() {
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(),
                DynamoDbFaultProxy.Options.defaults().withIndexLag());
        DynamoDbVerificationStore store = subscribed(storeBehind(proxy));
        Verification verification = verification(store);
        assertThat(store.webhooks().undeliveredEvents(100)).as("the first look").isEmpty();

        AuditEntry first = verification.audit().recordSuccess("lag-1", AuditEventType.DEVICE_REVOKED, Map.of(),
                ClientContext.none());
        assertThat(store.webhooks().undeliveredEvents(100)).as("the index lags").isEmpty();
        proxy.indexLag().release();
        assertThat(store.webhooks().undeliveredEvents(100)).as("the next look, the shard still hinted")
                .containsExactly(first);

        AuditEntry second = verification.audit().recordSuccess("lag-2", AuditEventType.DEVICE_REVOKED, Map.of(),
                ClientContext.none());
        for (int look = 0; look < OutboxLooks.HINTED_LOOKS; look++) {
            assertThat(store.webhooks().undeliveredEvents(100)).as("the index lags longer than the hint")
                    .doesNotContain(second);
        }
        proxy.indexLag().release();
        List<AuditEntry> found = new ArrayList<>();
        for (int look = 0; look < FULL_TURN && !found.contains(second); look++) {
            found.addAll(store.webhooks().undeliveredEvents(100));
        }
        assertThat(found).as("found by the rotation within one turn").contains(second);
    }

    @Test
    void thePreviousReleasesEventsUnderFourShardsAreDeliveredByARunningInstanceAndByANewOne() {
        DynamoDbVerificationStore store = store();
        Webhooks webhooks = webhooks(store);
        String endpointId = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
        WebhookRelay relay = relay(store, webhooks, verification(store));
        assertThat(relay.fanOut(100)).as("the first look, on an empty outbox").isZero();

        List<AuditEntry> old = putOldShapeEvents("old", 6);
        int taken = 0;
        for (int look = 0; look < FULL_TURN; look++) {
            taken += relay.fanOut(100);
        }
        assertThat(taken).as("taken within one turn of the rotation").isEqualTo(old.size());
        for (Delivery due : relay.due(endpointId, 100)) {
            assertThat(relay.attempt(due)).isEqualTo(DeliveryOutcome.DELIVERED);
        }
        assertThat(receiver.distinctIds()).isEqualTo(old.size());

        List<AuditEntry> older = putOldShapeEvents("upgraded", 3);
        DynamoDbVerificationStore restarted = store();
        WebhookRelay relayOfNewInstance = relay(restarted, webhooks(restarted), verification(restarted));
        assertThat(relayOfNewInstance.fanOut(100)).as("a new instance's first look").isEqualTo(older.size());
        for (Delivery due : relayOfNewInstance.due(endpointId, 100)) {
            assertThat(relayOfNewInstance.attempt(due)).isEqualTo(DeliveryOutcome.DELIVERED);
        }
        assertThat(receiver.distinctIds()).isEqualTo(old.size() + older.size());
        assertThat(receiver.duplicates()).isZero();
        assertThat(store.webhooks().outboxStats(clock.instant()).pending()).isZero();
    }

    @Test
    void theOutboxStatsReadAtMostTheBoundOfEachPartitionAndSayTheCountIsALowerBound() {
        DynamoDbVerificationStore store = store();
        Verification verification = verification(store);
        int backlog = 3 * DynamoDbWebhooks.STATS_PER_PARTITION;
        String crowded = TableKeys.outboxEventPartition(7);
        for (int i = 0; i < backlog; i++) {
            AuditEntry entry = verification.audit().newEntry("crowd-" + i, AuditEventType.DEVICE_REVOKED, true,
                    Optional.empty(), Map.of(), ClientContext.none());
            Map<String, Object> item = AuditItems.auditItem(entry);
            item.put(ItemAttributes.OUTBOX_PK, crowded);
            item.put(ItemAttributes.OUTBOX_SK, Timestamps.format(entry.timestamp()));
            putRaw(item);
            clock.advance(Duration.ofMillis(1));
        }

        queries.set(0);
        itemsAnswered.set(0);
        OutboxStats stats = store.webhooks().outboxStats(clock.instant());

        assertThat(stats.pending()).isEqualTo(DynamoDbWebhooks.STATS_PER_PARTITION);
        assertThat(stats.atLeast()).isTrue();
        assertThat(stats.oldest()).contains(START);
        assertThat(itemsAnswered.get()).as("items read, of a backlog of " + backlog)
                .isEqualTo(DynamoDbWebhooks.STATS_PER_PARTITION);
        assertThat(queries.get()).as("one query per shard, one for the endpoints")
                .isEqualTo(TableKeys.OUTBOX_SHARDS + 1);
    }

    /** A store on a table of its own behind {@code proxy}, both closed after the test. */
    private DynamoDbVerificationStore storeBehind(DynamoDbFaultProxy proxy) {
        closeAfterTest.add(0, proxy);
        DynamoDbClient client = Dynalite.client(proxy.endpoint());
        closeAfterTest.add(0, client);
        String table = "verification-" + UUID.randomUUID();
        new DynamoDbTableAdmin(client, table).createTable();
        return new DynamoDbVerificationStore(client, table, new ConsumedCapacityRecorder(), false);
    }

    /** The store, with an endpoint subscribed to every type, so that every audit entry is an event. */
    private DynamoDbVerificationStore subscribed(DynamoDbVerificationStore store) {
        webhooks(store).register("http://localhost:9/events", List.of(), Optional.empty());
        return store;
    }

    private DynamoDbVerificationStore store() {
        return new DynamoDbVerificationStore(counted, tableName, new ConsumedCapacityRecorder(), false);
    }

    private Verification verification(DynamoDbVerificationStore store) {
        return Verification.builder().store(store)
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(RANDOM))))
                .sender(new DevelopmentOutbox(clock)).clock(clock).build();
    }

    private Webhooks webhooks(DynamoDbVerificationStore store) {
        return new Webhooks(store.webhooks(), EncryptionKeyRing.fromBase64(List.of(ENCRYPTION_KEY)),
                new EndpointUrls(false, AddressResolver.system()), new SecureTokens(), clock);
    }

    private WebhookRelay relay(DynamoDbVerificationStore store, Webhooks webhooks, Verification verification) {
        return new WebhookRelay(store.webhooks(), webhooks, new EndpointUrls(false, AddressResolver.system()),
                new JdkWebhookTransport(), verification.audit(), RelayMetrics.none(), clock,
                "relay-" + UUID.randomUUID());
    }

    /** Audit items as the previous release wrote them: four shards, chosen by a hash of the item's key. */
    private List<AuditEntry> putOldShapeEvents(String prefix, int count) {
        Verification writer = verification(store());
        List<AuditEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            AuditEntry entry = writer.audit().newEntry(prefix + "-" + i, AuditEventType.DEVICE_REVOKED, true,
                    Optional.empty(), Map.of(), ClientContext.none());
            TableKeys.PrimaryKey key = TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId());
            Map<String, Object> item = AuditItems.auditItem(entry, false);
            int oldShard = Math.floorMod((key.pk() + "#" + key.sk()).hashCode(), 4);
            item.put(ItemAttributes.OUTBOX_PK, "OUTBOX#EVENT#" + oldShard);
            item.put(ItemAttributes.OUTBOX_SK, Timestamps.format(entry.timestamp()));
            putRaw(item);
            entries.add(entry);
        }
        return entries;
    }

    private void putRaw(Map<String, Object> item) {
        counted.putItem(request -> request.tableName(tableName).item(DynamoDbItems.toAttributeValues(item)));
    }

    private long queriesOf(Runnable look) {
        long before = queries.get();
        look.run();
        return queries.get() - before;
    }
}

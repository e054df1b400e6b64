package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryOutcome;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.WebhookEvent;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.table.EventItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The relay's writes on DynamoDB when their answers are lost and the SDK sends them again: the fault proxy drops
 * the answer after the engine applied the request. A batch fan-out still writes one delivery per event and takes
 * each out of the outbox; a resent claim is recognised as this relay's own lease, and a resent outcome as its own
 * write, so nothing waits for a lease to run out and the receiver gets each event once.
 */
class DynamoDbRelayRetryTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final List<AutoCloseable> closeAfterTest = new ArrayList<>();
    private final WebhookReceiver receiver = new WebhookReceiver();

    @AfterEach
    void close() throws Exception {
        receiver.close();
        for (AutoCloseable closeable : closeAfterTest) {
            closeable.close();
        }
    }

    /** The relay, its store and the operator's API behind a proxy that can lose answers, and one endpoint. */
    private record Lossy(String tableName, Verification verification, DynamoDbFaultProxy proxy,
                         VerificationStore store, Webhooks webhooks, String endpointId, WebhookRelay relay) {
    }

    private Lossy lossy() {
        String tableName = "verification-" + UUID.randomUUID();
        new DynamoDbTableAdmin(DYNALITE.get().transactional().client(), tableName).createTable();
        Verification verification = Verification.builder()
                .store(new DynamoDbVerificationStore(DYNALITE.get().transactional().client(), tableName,
                        new ConsumedCapacityRecorder(), false))
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(RANDOM))))
                .sender(new DevelopmentOutbox(clock)).clock(clock).build();
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(),
                DynamoDbFaultProxy.Options.defaults());
        closeAfterTest.add(0, proxy);
        DynamoDbClient client = Dynalite.client(proxy.endpoint());
        closeAfterTest.add(0, client);
        VerificationStore lossy = new DynamoDbVerificationStore(client, tableName, new ConsumedCapacityRecorder(),
                false);
        EndpointUrls urls = new EndpointUrls(false, AddressResolver.system());
        Webhooks webhooks = new Webhooks(lossy.webhooks(), EncryptionKeyRing.fromBase64(List.of(
                EncryptionKeyRing.generateBase64Key(RANDOM))), urls, new SecureTokens(), clock);
        String endpointId = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
        WebhookRelay relay = new WebhookRelay(lossy.webhooks(), webhooks, urls, new JdkWebhookTransport(),
                verification.audit(), RelayMetrics.none(), clock, "lossy-relay");
        return new Lossy(tableName, verification, proxy, lossy, webhooks, endpointId, relay);
    }

    @Test
    void theRelaysWritesRunTwiceAfterLostAnswersLeaveOneDeliveryEachAndSendEachEventOnce() {
        Lossy setup = lossy();
        Verification verification = setup.verification();
        DynamoDbFaultProxy proxy = setup.proxy();
        VerificationStore lossy = setup.store();
        String endpointId = setup.endpointId();
        WebhookRelay relay = setup.relay();
        for (String user : List.of("wes", "xia", "yan")) {
            verification.audit().recordSuccess(user, AuditEventType.DEVICE_REVOKED, Map.of(), ClientContext.none());
        }

        proxy.inject(Fault.dropAnswer("PutItem").whenBodyContains("DELIVERY#"));
        proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains("REMOVE OUTBOXPK"));
        assertThat(relay.fanOut(100)).isEqualTo(3);
        assertThat(dropped(proxy)).as("both answers were lost and the requests sent again").isEqualTo(2);
        assertThat(lossy.webhooks().undeliveredEvents(100)).isEmpty();
        List<Delivery> due = relay.due(endpointId, 10);
        assertThat(due).hasSize(3);

        proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains(":until"));
        List<Delivery> claimed = relay.claim(due.subList(0, 1));
        assertThat(claimed).as("the resent claim is this relay's own lease").hasSize(1);

        WebhookRelay.Attempted first = relay.send(claimed.get(0)).join();
        proxy.inject(Fault.dropAnswer("PutItem").whenBodyContains(DeliveryStatus.DELIVERED.name()));
        proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains(":until"));
        WebhookRelay.Recorded recorded = relay.record(List.of(first), due.subList(1, 3));
        assertThat(recorded.outcomes()).as("the resent outcome is this relay's own write")
                .containsExactly(DeliveryOutcome.DELIVERED);
        assertThat(recorded.claimed()).hasSize(2);
        assertThat(dropped(proxy)).isEqualTo(5);
        for (Delivery next : recorded.claimed()) {
            assertThat(relay.record(List.of(relay.send(next).join()), List.of()).outcomes())
                    .containsExactly(DeliveryOutcome.DELIVERED);
        }

        assertThat(receiver.distinctIds()).isEqualTo(3);
        assertThat(receiver.duplicates()).isZero();
        assertThat(lossy.webhooks().deliveries(endpointId, START, clock.instant(), 10)).hasSize(3)
                .allSatisfy(delivery -> assertThat(delivery.status()).isEqualTo(DeliveryStatus.DELIVERED));
        assertThat(relay.due(endpointId, 10)).isEmpty();
    }

    /**
     * A delivery the previous release wrote (the endpoint's one partition, outside the shard this release would
     * choose) whose claim, outcome and redelivery each lose their answer once: each resent write is recognised or
     * harmless, and the item stays the only one, where it was.
     */
    @Test
    void aDeliveryOfThePreviousReleaseIsClaimedRecordedAndPutBackWhereItIsWhenAnswersAreLost() {
        Lossy setup = lossy();
        DynamoDbFaultProxy proxy = setup.proxy();
        String endpointId = setup.endpointId();
        // An event outside shard 0, left in the outbox: only the raw item below delivers it.
        WebhookEvent event = eventOutsideShardZero(setup.verification(), endpointId);
        TableKeys.PrimaryKey old = TableKeys.unshardedDelivery(endpointId, event.occurredAt(), event.eventId());
        Map<String, Object> item = EventItems.deliveryItem(Delivery.pending(endpointId, event, event.occurredAt()),
                old);
        item.put(ItemAttributes.OUTBOX_PK, "OUTBOX#DELIVERY#" + endpointId);
        DYNALITE.get().client().putItem(request -> request.tableName(setup.tableName())
                .item(DynamoDbItems.toAttributeValues(item)));
        String atTheOldKey = "\"" + old.pk() + "\"";

        List<Delivery> due = setup.relay().due(endpointId, 10);
        assertThat(due).extracting(Delivery::eventId).containsExactly(event.eventId());
        proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains(atTheOldKey));
        List<Delivery> claimed = setup.relay().claim(due);
        assertThat(claimed).as("the resent claim is this relay's own lease").hasSize(1);
        proxy.inject(Fault.dropAnswer("PutItem").whenBodyContains(atTheOldKey));
        assertThat(setup.relay().record(List.of(setup.relay().send(claimed.get(0)).join()), List.of()).outcomes())
                .as("the resent outcome is this relay's own write").containsExactly(DeliveryOutcome.DELIVERED);
        proxy.inject(Fault.dropAnswer("PutItem").whenBodyContains(atTheOldKey));
        setup.webhooks().redeliver(endpointId, event.eventId());
        assertThat(dropped(proxy)).isEqualTo(3);

        assertThat(setup.relay().due(endpointId, 10)).extracting(Delivery::eventId).containsExactly(event.eventId());
        List<Delivery> listed = setup.webhooks().deliveries(endpointId, Optional.empty(), Optional.empty(),
                Optional.empty());
        assertThat(listed).singleElement().satisfies(delivery -> {
            assertThat(delivery.status()).isEqualTo(DeliveryStatus.PENDING);
            assertThat(delivery.lastStatus()).contains(204);
        });
        assertThat(receiver.received()).hasSize(1);
        assertThat(setup.store().webhooks().findDelivery(endpointId, event.occurredAt(), event.eventId()))
                .isPresent();
        assertThat(DYNALITE.get().client().getItem(request -> request.tableName(setup.tableName())
                .key(DynamoDbTable.keyOf(TableKeys.delivery(endpointId, event.occurredAt(), event.eventId()))))
                .hasItem()).as("nothing written at this release's key").isFalse();
    }

    private static WebhookEvent eventOutsideShardZero(Verification verification, String endpointId) {
        while (true) {
            WebhookEvent event = WebhookEvent.of(verification.audit().recordSuccess("old-" + RANDOM.nextInt(1_000_000),
                    AuditEventType.DEVICE_REVOKED, Map.of(), ClientContext.none()));
            if (EventItems.deliveryKeys(endpointId, event.occurredAt(), event.eventId()).size() == 2) {
                return event;
            }
        }
    }

    private static long dropped(DynamoDbFaultProxy proxy) {
        return proxy.exchanges().stream().filter(exchange -> exchange.outcome() == Exchange.Outcome.ANSWER_DROPPED)
                .count();
    }
}

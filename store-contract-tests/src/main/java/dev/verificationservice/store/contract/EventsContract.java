package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryOutcome;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.EndpointStatus;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.EventIds;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.RelayRunner;
import dev.verificationservice.events.RetrySchedule;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookEvent;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookSettings;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import dev.verificationservice.testsupport.webhooks.StandardWebhooksVerifier;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Events out on the store: an audit entry of a type some endpoint subscribes to is an undelivered event written with
 * it (none without such an endpoint, and none once the store is told webhooks are off); the relay fans it out,
 * delivers it signed to real HTTP receivers (JDK servers on port 0), retries on the schedule of the test's clock,
 * disables an endpoint on 410, shares work between relays by leases, and copes with a lagging outbox index.
 * Signatures are checked by {@link StandardWebhooksVerifier}, written from the specification, not by the service.
 */
public abstract class EventsContract extends ContractPart {

    private final List<WebhookReceiver> receivers = new ArrayList<>();
    private final Map<DeliveryOutcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final AtomicInteger disabled = new AtomicInteger();
    private EndpointUrls urls;
    private Webhooks webhooks;

    protected EventsContract(ContractFixture fixture) {
        super(fixture);
    }

    @BeforeEach
    void webhooksOnTheStore() {
        byte[] key = new byte[EncryptionKeyRing.KEY_BYTES];
        RANDOM.nextBytes(key);
        urls = new EndpointUrls(false, AddressResolver.system());
        webhooks = new Webhooks(store().webhooks(), EncryptionKeyRing.ofKeys(List.of(key)), urls,
                new SecureTokens(), clock());
    }

    @AfterEach
    void closeReceivers() {
        receivers.forEach(WebhookReceiver::close);
    }

    @Test
    void anEntryOfASubscribedTypeIsAnUndeliveredEventUntilItIsFannedOut() {
        subscribe(store());
        sendEmailCode("eve");
        indexCatchesUp();

        List<AuditEntry> undelivered = store().webhooks().undeliveredEvents(100);
        assertThat(undelivered).extracting(AuditEntry::eventType).containsExactly(AuditEventType.CODE_SENT);
        assertThat(undelivered.get(0)).isEqualTo(verification().audit().query("eve", Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty()).entries().get(0));

        assertThat(relay("one").fanOut(100)).isEqualTo(1);
        indexCatchesUp();
        assertThat(store().webhooks().undeliveredEvents(100)).isEmpty();
        assertThat(auditTypes("eve")).containsExactly(AuditEventType.CODE_SENT);
        assertThat(store().webhooks().outboxStats(clock().instant()).pending()).as("its one delivery").isOne();
    }

    @Test
    void withNoEndpointAnAuditEntryEntersNoOutbox() {
        sendEmailCode("nobody");
        verification().audit().recordFailure("nobody", AuditEventType.CODE_VERIFICATION_FAILED, "WRONG_CODE",
                Map.of(), ClientContext.none());
        indexCatchesUp();

        assertThat(auditTypes("nobody")).containsExactlyInAnyOrder(AuditEventType.CODE_SENT,
                AuditEventType.CODE_VERIFICATION_FAILED);
        assertThat(allRawItems()).as("no item in the outbox index")
                .noneMatch(item -> item.containsKey(ItemAttributes.OUTBOX_PK));
        assertThat(store().webhooks().undeliveredEvents(100)).isEmpty();
        assertThat(store().webhooks().outboxStats(clock().instant()).pending()).isZero();
    }

    /**
     * Only the subscribed types enter the outbox; a disabled endpoint still subscribes (its events are kept as failed
     * deliveries, for a redelivery once it is enabled again); a deleted one, at once on this instance, no longer.
     */
    @Test
    void anEndpointOnCodeSentMakesASendsEntryAnEventAndItsVerificationsNone() {
        WebhookEndpoint endpoint = subscribe(store(), "code.sent");

        assertThat(verifyEmailCode("sub", sendEmailCode("sub")).valid()).isTrue();
        indexCatchesUp();
        assertThat(auditTypes("sub")).containsExactly(AuditEventType.CODE_VERIFIED, AuditEventType.CODE_SENT);
        assertThat(store().webhooks().undeliveredEvents(100)).extracting(AuditEntry::eventType)
                .containsExactly(AuditEventType.CODE_SENT);

        assertThat(store().webhooks().replaceEndpoint(new WebhookEndpoint(endpoint.endpointId(), endpoint.url(),
                endpoint.eventTypes(), endpoint.description(), EndpointStatus.DISABLED, endpoint.createdAt(),
                endpoint.secret(), endpoint.previousSecret(), endpoint.previousUntil(), endpoint.failingSince(),
                Optional.of("410"), endpoint.version() + 1), endpoint.version())).isTrue();
        sendEmailCode("off");
        webhooks.delete(endpoint.endpointId());
        sendEmailCode("gone");
        indexCatchesUp();
        assertThat(store().webhooks().undeliveredEvents(100)).extracting(AuditEntry::userId)
                .containsExactlyInAnyOrder("sub", "off");
    }

    /**
     * The weakening the view makes: an endpoint registered through another store object (another instance) is seen
     * here once this instance's view is {@link dev.verificationservice.events.EventSubscriptions#refreshInterval}
     * old, and on the instance that registered it at once.
     */
    @Test
    void anEndpointRegisteredOnAnotherInstanceTakesEventsThereAtOnceAndHereAfterTheRefreshInterval() {
        VerificationStore other = anotherInstance();
        sendEmailCode("here-before");
        assertThat(on(other).codes().issue(CodeRequest.of("there-before", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "there-before@example.com"))).isInstanceOf(IssueResult.Issued.class);

        subscribe(other);
        assertThat(on(other).codes().issue(CodeRequest.of("there-at-once", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "there-at-once@example.com"))).isInstanceOf(IssueResult.Issued.class);
        clock().advance(store().eventSubscriptions().refreshInterval());
        sendEmailCode("here-after");
        indexCatchesUp();

        assertThat(store().webhooks().undeliveredEvents(100)).extracting(AuditEntry::userId)
                .containsExactlyInAnyOrder("there-at-once", "here-after");
    }

    @Test
    void withEventsOffAnAuditEntryEntersNoOutboxAndIsNeverDelivered() {
        WebhookReceiver receiver = receiver();
        webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
        store().eventsOff();

        sendEmailCode("off");
        verification().audit().recordFailure("off", AuditEventType.CODE_VERIFICATION_FAILED, "WRONG_CODE", Map.of(),
                ClientContext.none());
        indexCatchesUp();

        assertThat(auditTypes("off")).containsExactlyInAnyOrder(AuditEventType.CODE_SENT,
                AuditEventType.CODE_VERIFICATION_FAILED);
        assertThat(allRawItems()).as("no item in the outbox index")
                .noneMatch(item -> item.containsKey(ItemAttributes.OUTBOX_PK));
        assertThat(store().webhooks().undeliveredEvents(100)).isEmpty();
        assertThat(store().webhooks().outboxStats(clock().instant()).pending()).isZero();
        assertThat(relayAll(relay("one"))).isEmpty();
        assertThat(receiver.received()).isEmpty();
    }

    @Test
    void aChangeTheStoreRefusesWritesNoEventAndNoAuditEntry() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        subscribe(store());
        DeviceToken token = new DeviceToken("laptop-1", "digest-1", "dan", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        store().devices().registerDevice(token, verification().audit().newEntry("dan", AuditEventType.DEVICE_ADDED, true,
                Optional.empty(), Map.of("n", "first"), ClientContext.none()));

        assertThatThrownBy(() -> store().devices().registerDevice(token, verification().audit().newEntry("dan",
                AuditEventType.DEVICE_ADDED, true, Optional.empty(), Map.of("n", "second"), ClientContext.none())))
                .isInstanceOf(StoreException.class);

        indexCatchesUp();
        assertThat(store().webhooks().undeliveredEvents(100)).singleElement()
                .satisfies(event -> assertThat(event.details()).containsEntry("n", "first"));
        assertThat(auditTypes("dan")).containsExactly(AuditEventType.DEVICE_ADDED);
    }

    @Test
    void anEventArrivesOnceSignedAsStandardWebhooksSpecifies() {
        WebhookReceiver receiver = receiver();
        Webhooks.Registration endpoint = webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
        sendEmailCode("ann");

        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);
        assertThat(relayAll(relay("one"))).isEmpty();

        assertThat(receiver.received()).hasSize(1);
        WebhookReceiver.Received request = receiver.received().get(0);
        assertThat(new StandardWebhooksVerifier(endpoint.secret().text()).verifies(request.id(), request.timestamp(),
                request.signature(), request.body(), clock().instant())).isTrue();
        assertThat(request.contentType()).isEqualTo("application/json");
        assertThat(request.bodyText()).startsWith("{\"type\":\"code.sent\",\"timestamp\":\"")
                .contains("\"userId\":\"ann\"").doesNotContain(latestCode()).doesNotContain("ann@example.com");
        assertThat(request.id()).isEqualTo(EventIds.of(verification().audit().query("ann", Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty()).entries().get(0)));
        List<Delivery> deliveries = webhooks.deliveries(endpoint.endpoint().endpointId(), Optional.empty(),
                Optional.empty(), Optional.empty());
        assertThat(deliveries).singleElement().satisfies(delivery -> {
            assertThat(delivery.status()).isEqualTo(DeliveryStatus.DELIVERED);
            assertThat(delivery.attempts()).isEqualTo(1);
            assertThat(delivery.lastStatus()).contains(204);
        });
    }

    @Test
    void aRefusedRequestProducesItsRefusalsEvent() {
        WebhookReceiver receiver = receiver();
        webhooks.register(receiver.url().toString(), List.of("code.verification.failed"), Optional.empty());
        String code = sendEmailCode("rob");
        verifyEmailCode("rob", wrongCode(code));

        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);
        assertThat(receiver.received()).singleElement().satisfies(request -> assertThat(request.bodyText())
                .contains("\"type\":\"code.verification.failed\"", "\"success\":false", "\"failureReason\":"));
    }

    @Test
    void aFailingReceiverIsTriedAgainOnTheScheduleUntilItAnswers() {
        WebhookReceiver receiver = receiver().answering(500, 503);
        Webhooks.Registration endpoint = webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
        sendEmailCode("fay");
        WebhookRelay relay = relay("one");

        assertThat(relayAll(relay)).containsExactly(DeliveryOutcome.RETRYING);
        clock().advance(RetrySchedule.DELAYS.get(0).minusMillis(1));
        assertThat(relayAll(relay)).as("not due before its delay").isEmpty();
        clock().advance(Duration.ofMillis(1));
        assertThat(relayAll(relay)).containsExactly(DeliveryOutcome.RETRYING);
        clock().advance(RetrySchedule.DELAYS.get(1));
        assertThat(relayAll(relay)).containsExactly(DeliveryOutcome.DELIVERED);

        assertThat(receiver.received()).hasSize(3).extracting(WebhookReceiver.Received::id).containsOnly(
                receiver.received().get(0).id());
        // Each attempt is signed afresh at its own time (checked as the receiver would, when it arrived).
        assertThat(receiver.received()).extracting(WebhookReceiver.Received::timestamp).doesNotHaveDuplicates();
        assertThat(receiver.received()).allSatisfy(request -> assertThat(new StandardWebhooksVerifier(
                endpoint.secret().text()).verifies(request.id(), request.timestamp(), request.signature(),
                request.body(), Instant.ofEpochSecond(Long.parseLong(request.timestamp())))).isTrue());
        assertThat(webhooks.get(endpoint.endpoint().endpointId()).failingSince()).isEmpty();
    }

    /**
     * A relay reads an endpoint for its sends at most once per {@link WebhookRelay#ENDPOINT_FRESH}, and again at once
     * after an endpoint write through its own store object: an endpoint disabled on another instance is sent to until
     * that time has passed, and one enabled here again is sent to at once.
     */
    @Test
    void aRelayReadsAnEndpointForItsSendsOnceAPeriodAndAgainAfterAnEndpointWriteOfItsOwn() {
        WebhookReceiver receiver = receiver();
        String id = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint().endpointId();
        for (String user : List.of("ida-0", "ida-1", "ida-2", "ida-3")) {
            sendEmailCode(user);
        }
        WebhookRelay relay = relay("one");
        indexCatchesUp();
        relay.fanOut(100);
        indexCatchesUp();
        List<Delivery> due = relay.due(100);
        assertThat(due).hasSize(4);

        assertThat(relay.attempt(due.get(0))).isEqualTo(DeliveryOutcome.DELIVERED);
        VerificationStore other = anotherInstance();
        disableOn(other, id);
        // A store whose other instance is this very object (the memory store) makes every write its own.
        assertThat(relay.attempt(due.get(1))).as("the endpoint as read for the last send, within its time")
                .isEqualTo(other == store() ? DeliveryOutcome.FAILED : DeliveryOutcome.DELIVERED);
        clock().advance(WebhookRelay.ENDPOINT_FRESH);
        assertThat(relay.attempt(due.get(2))).as("read again: disabled").isEqualTo(DeliveryOutcome.FAILED);
        webhooks.enable(id);
        assertThat(relay.attempt(due.get(3))).as("enabled through this store object: read again at once")
                .isEqualTo(DeliveryOutcome.DELIVERED);
        assertThat(receiver.distinctIds()).isEqualTo(other == store() ? 2 : 3);
    }

    @Test
    void anEndpointAnswering410IsDisabledAndEventsWaitForARedelivery() {
        WebhookReceiver receiver = receiver().answering(410);
        String id = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint().endpointId();
        sendEmailCode("gus");

        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.FAILED);
        assertThat(webhooks.get(id).status()).isEqualTo(EndpointStatus.DISABLED);
        assertThat(disabled).hasValue(1);
        assertThat(auditTypes(id)).containsExactly(AuditEventType.WEBHOOK_ENDPOINT_DISABLED);

        sendEmailCode("hal");
        relayAll(relay("one"));
        assertThat(receiver.received()).hasSize(1);

        webhooks.enable(id);
        assertThat(webhooks.redeliver(id, START, clock().instant())).isEqualTo(3);
        assertThat(relayAll(relay("one"))).containsOnly(DeliveryOutcome.DELIVERED).hasSize(3);
        assertThat(receiver.distinctIds()).isEqualTo(3);
    }

    @Test
    void anEndpointFailingForThreeDaysIsDisabled() {
        WebhookReceiver receiver = receiver();
        String id = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint().endpointId();
        for (int i = 0; i < 40; i++) {
            receiver.answering(500);
        }
        sendEmailCode("ida");
        WebhookRelay relay = relay("one");
        relayAll(relay);
        for (Duration delay : RetrySchedule.DELAYS) {
            clock().advance(delay);
            relayAll(relay);
        }
        assertThat(webhooks.get(id).status()).as("27.5 hours of failure").isEqualTo(EndpointStatus.ENABLED);

        clock().advance(Duration.ofDays(2));
        sendEmailCode("ivy");
        assertThat(relayAll(relay)).containsExactly(DeliveryOutcome.FAILED);
        assertThat(webhooks.get(id).status()).isEqualTo(EndpointStatus.DISABLED);
        assertThat(webhooks.get(id).disabledReason()).hasValueSatisfying(reason -> assertThat(reason).contains("3 days"));
    }

    @Test
    void aRotatedSecretSignsBesideTheNewOneForADay() {
        WebhookReceiver receiver = receiver();
        Webhooks.Registration first = webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
        Webhooks.Registration rotated = webhooks.rotateSecret(first.endpoint().endpointId());
        assertThat(rotated.secret().text()).isNotEqualTo(first.secret().text());
        sendEmailCode("jon");
        relayAll(relay("one"));

        WebhookReceiver.Received during = receiver.received().get(0);
        assertThat(during.signature().split(" ")).hasSize(2);
        assertThat(verifies(first, during)).isTrue();
        assertThat(verifies(rotated, during)).isTrue();

        clock().advance(Webhooks.PREVIOUS_SECRET_SIGNS_FOR);
        sendEmailCode("joe");
        relayAll(relay("one"));
        WebhookReceiver.Received after = receiver.received().get(1);
        assertThat(after.signature().split(" ")).hasSize(1);
        assertThat(verifies(first, after)).isFalse();
        assertThat(verifies(rotated, after)).isTrue();
    }

    /**
     * Receivers and the proxies before them log {@code webhook-id}: it holds nothing of the user, in any encoding, and
     * is the same on every attempt and in the operator's listing, which is what a receiver drops duplicates by.
     */
    @Test
    void theEventIdNamesNoUserAndIsTheSameOnEveryRetry() {
        WebhookReceiver receiver = receiver().answering(503);
        String endpointId = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
        String user = "quinn.opaque@example.com";
        verification().audit().recordSuccess(user, AuditEventType.DEVICE_REVOKED, Map.of(), ClientContext.none());

        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.RETRYING);
        clock().advance(RetrySchedule.DELAYS.get(0));
        assertThat(relayAll(relay("other"))).containsExactly(DeliveryOutcome.DELIVERED);

        assertThat(receiver.received()).hasSize(2);
        String id = receiver.received().get(0).id();
        assertThat(receiver.received().get(1).id()).as("the retry's id").isEqualTo(id);
        assertThat(webhooks.deliveries(endpointId, Optional.empty(), Optional.empty(), Optional.empty()))
                .extracting(Delivery::eventId).containsExactly(id);
        assertThat(id).startsWith(EventIds.PREFIX);
        assertThat(revealed(id)).noneSatisfy(text -> assertThat(text).containsIgnoringCase("quinn"))
                .noneSatisfy(text -> assertThat(text).containsIgnoringCase("example"));
    }

    /** The id as text, and every way it could carry text: base64url or base64 from each of the first offsets. */
    private static List<String> revealed(String id) {
        List<String> forms = new ArrayList<>(List.of(id));
        String encoded = id.substring(EventIds.PREFIX.length());
        for (int offset = 0; offset < 4; offset++) {
            String part = encoded.substring(offset);
            part = part.substring(0, part.length() - part.length() % 4);
            for (java.util.Base64.Decoder decoder : List.of(java.util.Base64.getUrlDecoder(),
                    java.util.Base64.getDecoder())) {
                try {
                    forms.add(new String(decoder.decode(part), java.nio.charset.StandardCharsets.ISO_8859_1));
                } catch (IllegalArgumentException notThisAlphabet) {
                    // not text in this encoding
                }
            }
        }
        return forms;
    }

    @Test
    void oneEventIsRedeliveredByItsIdAlsoToAnEndpointRegisteredAfterIt() {
        String unsent = EventIds.of(verification().audit().recordSuccess("kai", AuditEventType.DEVICE_REVOKED,
                Map.of(), ClientContext.none()));
        relayAll(relay("one"));
        WebhookReceiver first = receiver();
        webhooks.register(first.url().toString(), List.of(), Optional.empty());
        sendEmailCode("kai");
        relayAll(relay("one"));
        String eventId = first.received().get(0).id();
        WebhookReceiver receiver = receiver();
        String id = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint().endpointId();

        webhooks.redeliver(id, eventId);
        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);
        webhooks.redeliver(id, eventId);
        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);

        assertThat(receiver.received()).extracting(WebhookReceiver.Received::id).containsExactly(eventId, eventId);
        assertThat(receiver.received()).extracting(WebhookReceiver.Received::bodyText)
                .containsOnly(first.received().get(0).bodyText());
        assertField(() -> webhooks.redeliver(id, unsent), "eventId");
        assertField(() -> webhooks.redeliver(id, "evt_" + eventId.substring(5, 12)), "eventId");
        assertField(() -> webhooks.redeliver("ep_PK#x", eventId), "endpointId");
    }

    /**
     * Outcomes and the claims of the endpoint's next deliveries are written in one store step, each under its own
     * condition: an outcome whose lease was lost is not written, and only due, unleased deliveries are claimed. A
     * claim given back unsent is due again at once.
     */
    @Test
    void outcomesAreWrittenWithTheNextClaimsEachUnderItsOwnCondition() {
        WebhookReceiver receiver = receiver();
        String endpointId = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
        for (int i = 0; i < 5; i++) {
            verification().audit().recordSuccess("next-" + i, AuditEventType.DEVICE_REVOKED, Map.of(),
                    ClientContext.none());
        }
        WebhookRelay one = relay("one");
        WebhookRelay other = relay("other");
        indexCatchesUp();
        assertThat(one.fanOut(100)).isEqualTo(5);
        indexCatchesUp();
        List<Delivery> due = one.due(endpointId, 10);
        assertThat(due).hasSize(5);
        List<Delivery> mine = one.claim(due.subList(0, 3));
        assertThat(mine).hasSize(3);
        assertThat(other.claim(due.subList(2, 3))).as("leased to the first relay").isEmpty();

        WebhookRelay.Attempted first = one.send(mine.get(0)).join();
        WebhookRelay.Attempted second = one.send(mine.get(1)).join();
        clock().advance(WebhookRelay.LEASE.plusSeconds(1));
        assertThat(other.claim(List.of(due.get(1), due.get(3)))).as("the second's lease ran out").hasSize(2);
        WebhookRelay.Recorded recorded = one.record(List.of(first, second), due.subList(2, 5));
        assertThat(recorded.outcomes()).containsExactly(DeliveryOutcome.DELIVERED, DeliveryOutcome.LEASE_LOST);
        assertThat(recorded.claimed()).as("its own expired lease and the free one; not the other relay's")
                .extracting(Delivery::eventId).containsExactly(due.get(2).eventId(), due.get(4).eventId());

        one.release(recorded.claimed());
        assertThat(other.claim(recorded.claimed())).as("given back, due at once").hasSize(2);
        assertThat(status(endpointId, due.get(0))).isEqualTo(DeliveryStatus.DELIVERED);
        assertThat(store().webhooks().findDelivery(endpointId, due.get(1).event().occurredAt(), due.get(1).eventId()))
                .hasValueSatisfying(delivery -> {
                    assertThat(delivery.status()).isEqualTo(DeliveryStatus.PENDING);
                    assertThat(delivery.leaseOwner()).contains("other");
                });
    }

    private DeliveryStatus status(String endpointId, Delivery delivery) {
        return store().webhooks().findDelivery(endpointId, delivery.event().occurredAt(), delivery.eventId())
                .orElseThrow().status();
    }

    @Test
    void aLaggingOutboxIndexNeverSendsAnEventTwice() {
        WebhookReceiver receiver = receiver();
        webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
        sendEmailCode("lea");
        indexCatchesUp();
        WebhookRelay relay = relay("one");
        relay.fanOut(100);
        // The index still shows the event as undelivered: a second fan-out repeats harmlessly.
        relay.fanOut(100);
        indexCatchesUp();
        List<Delivery> due = relay.due(100);
        assertThat(due).hasSize(1);
        assertThat(relay.attempt(due.get(0))).isEqualTo(DeliveryOutcome.DELIVERED);
        // Without indexCatchesUp the index still lists the delivery as due: the claim refuses it.
        for (Delivery stale : relay.due(100)) {
            assertThat(relay.attempt(stale)).isEqualTo(DeliveryOutcome.NOT_CLAIMED);
        }
        assertThat(relay.attempt(due.get(0))).isEqualTo(DeliveryOutcome.NOT_CLAIMED);
        assertThat(receiver.received()).hasSize(1);
    }

    @Test
    void aNameThatResolvesToAPrivateAddressAtDeliveryIsNotSentTo() {
        urls = new EndpointUrls(false, host -> List.of(java.net.InetAddress.getByName(
                host.equals("hooks.example.com") ? "10.0.0.1" : "203.0.113.10")));
        String id = webhooks.register("https://hooks.example.com/in", List.of(), Optional.empty()).endpoint()
                .endpointId();
        sendEmailCode("sam");

        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.RETRYING);
        assertThat(webhooks.deliveries(id, Optional.empty(), Optional.empty(), Optional.empty())).singleElement()
                .satisfies(delivery -> {
                    assertThat(delivery.lastStatus()).isEmpty();
                    assertThat(delivery.lastError()).hasValueSatisfying(why -> assertThat(why).contains("10.0.0.1"));
                });
    }

    @Test
    void twoRelaysOnOneStoreDeliverEveryEventOnceBetweenThem() throws Exception {
        WebhookReceiver first = receiver();
        WebhookReceiver second = receiver();
        webhooks.register(first.url().toString(), List.of(), Optional.empty());
        webhooks.register(second.url().toString(), List.of(), Optional.empty());
        int events = 12;
        for (int i = 0; i < events; i++) {
            verification().audit().recordSuccess("user-" + i, AuditEventType.DEVICE_REVOKED, Map.of("n", "" + i),
                    ClientContext.none());
        }
        List<WebhookRelay> relays = List.of(relay("instance-a"), relay("instance-b"));
        AtomicInteger next = new AtomicInteger();
        runConcurrently(2, () -> {
            WebhookRelay relay = relays.get(next.getAndIncrement());
            for (int round = 0; round < 20; round++) {
                relayAll(relay);
            }
            return null;
        });
        indexCatchesUp();
        relayAll(relays.get(0));

        assertThat(first.distinctIds()).isEqualTo(events);
        assertThat(second.distinctIds()).isEqualTo(events);
        assertThat(first.duplicates() + second.duplicates()).as("duplicates").isZero();
        assertThat(outcomes.getOrDefault(DeliveryOutcome.LEASE_LOST, new AtomicInteger())).hasValue(0);
        assertThat(outcomes.get(DeliveryOutcome.DELIVERED)).hasValue(2 * events);
        assertThat(store().webhooks().outboxStats(clock().instant()).pending()).isZero();
    }

    /**
     * Five endpoints that never answer, with fewer workers than they have slots: they hold their own slots and no
     * worker, and every event of a healthy endpoint goes out meanwhile.
     */
    @Test
    void hangingEndpointsHoldOnlyTheirOwnSlotsAndAHealthyOneIsServedMeanwhile() throws Exception {
        List<WebhookReceiver> hanging = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            WebhookReceiver receiver = receiver().hanging();
            webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
            hanging.add(receiver);
        }
        WebhookReceiver healthy = receiver();
        webhooks.register(healthy.url().toString(), List.of(), Optional.empty());
        int events = 10;
        for (int i = 0; i < events; i++) {
            verification().audit().recordSuccess("user-" + i, AuditEventType.DEVICE_REVOKED, Map.of(),
                    ClientContext.none());
        }
        WebhookSettings settings = new WebhookSettings(false, 2, 2, Duration.ofDays(1), 100);
        try (RelayRunner runner = new RelayRunner(relay("one"), settings)) {
            handOutOnce(runner);
            assertThat(awaitReceived(healthy, events)).as("the healthy endpoint got its events while five endpoints "
                    + "hang: %d of %d", healthy.received().size(), events).isTrue();
            assertThat(healthy.distinctIds()).isEqualTo(events);
            // The healthy endpoint may be served before the hanging requests have all reached their servers.
            for (WebhookReceiver receiver : hanging) {
                assertThat(receiver.awaitHanging(2, Duration.ofMinutes(1))).as("a hanging endpoint got its two "
                        + "requests: %d", receiver.hangingNow()).isTrue();
            }
            assertThat(hanging).allSatisfy(receiver -> assertThat(receiver.hangingNow())
                    .as("each hanging endpoint holds its two slots, no more").isEqualTo(2));
            hanging.forEach(WebhookReceiver::release);
        }
    }

    /**
     * One slot, a backlog of many events, one hand-out: each outcome frees the slot and the next delivery goes out
     * at once, without waiting for another poll. A dead endpoint's older backlog holds none of it up.
     */
    @Test
    void anEndpointIsSentToAtThePaceItAnswersAndADeadEndpointsBacklogHoldsItUp() throws Exception {
        WebhookReceiver dead = receiver().hanging();
        webhooks.register(dead.url().toString(), List.of(), Optional.empty());
        WebhookSettings settings = new WebhookSettings(false, 4, 1, Duration.ofDays(1), 5);
        // The dead endpoint's backlog: older than anything else due, and more than one poll's batch.
        for (int i = 0; i < 3 * settings.batchSize(); i++) {
            verification().audit().recordSuccess("old-" + i, AuditEventType.DEVICE_REVOKED, Map.of(),
                    ClientContext.none());
        }
        indexCatchesUp();
        relay("one").fanOut(100);
        clock().advance(Duration.ofSeconds(1));
        WebhookReceiver healthy = receiver();
        webhooks.register(healthy.url().toString(), List.of(), Optional.empty());
        int events = 12;
        for (int i = 0; i < events; i++) {
            verification().audit().recordSuccess("new-" + i, AuditEventType.DEVICE_REVOKED, Map.of(),
                    ClientContext.none());
        }
        // Fanned out here, beyond the runner's batch: what follows is the hand-out alone.
        indexCatchesUp();
        relay("one").fanOut(100);
        try (RelayRunner runner = new RelayRunner(relay("one"), settings)) {
            handOutOnce(runner);
            assertThat(awaitReceived(healthy, events)).as("%d of %d events, one at a time, after one hand-out",
                    healthy.received().size(), events).isTrue();
            assertThat(healthy.distinctIds()).isEqualTo(events);
            assertThat(healthy.duplicates()).isZero();
            dead.release();
        }
    }

    /**
     * Waits for {@code events} requests while the outbox index catches up now and then, as DynamoDB's does on its
     * own (the test fixture's index lags until told); the minute bounds a hang, a healthy run takes well under a
     * second.
     */
    private boolean awaitReceived(WebhookReceiver receiver, int events) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!receiver.awaitReceived(events, Duration.ofMillis(50))) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            indexCatchesUp();
        }
        return true;
    }

    /** Polls as the runner's schedule would, twice: the fan-out, then (the index caught up) the hand-out. */
    private void handOutOnce(RelayRunner runner) {
        indexCatchesUp();
        runner.poll();
        indexCatchesUp();
        runner.poll();
    }

    @Test
    void deletingAnEndpointTakesItsPendingDeliveriesOutOfTheOutbox() {
        WebhookReceiver receiver = receiver().answering(500, 500);
        Webhooks.Registration endpoint = webhooks.register(receiver.url().toString(), List.of(), Optional.empty());
        for (String user : List.of("del-1", "del-2")) {
            verification().audit().recordSuccess(user, AuditEventType.DEVICE_REVOKED, Map.of(), ClientContext.none());
        }
        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.RETRYING, DeliveryOutcome.RETRYING);
        indexCatchesUp();
        assertThat(store().webhooks().outboxStats(clock().instant()).pending()).isEqualTo(2);

        webhooks.delete(endpoint.endpoint().endpointId());

        indexCatchesUp();
        assertThat(store().webhooks().outboxStats(clock().instant()).pending()).isZero();
        assertThat(store().webhooks().deliveries(endpoint.endpoint().endpointId(), START, clock().instant(), 10))
                .hasSize(2).allSatisfy(delivery -> assertThat(delivery.status()).isEqualTo(DeliveryStatus.FAILED));
    }

    /**
     * The previous release wrote an endpoint's deliveries in one partition ({@code WEBHOOK#<endpointId>}, pending ones
     * in the outbox under {@code OUTBOX#DELIVERY#<endpointId>}); such an item, written here raw in that shape for an
     * event this release would put in another shard, is still sent, listed and redelivered, each time where it is.
     */
    @Test
    void aDeliveryInThePreviousReleasesShapeIsSentListedAndRedeliveredWhereItIs() {
        WebhookEvent event = eventOutsideShardZero();
        relayAll(relay("one"));
        WebhookReceiver receiver = receiver();
        String endpointId = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
        putRawItem(previousReleasesPendingDelivery(endpointId, event));

        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);
        assertThat(webhooks.deliveries(endpointId, Optional.empty(), Optional.empty(), Optional.empty()))
                .singleElement().satisfies(delivery -> {
                    assertThat(delivery.eventId()).isEqualTo(event.eventId());
                    assertThat(delivery.status()).isEqualTo(DeliveryStatus.DELIVERED);
                    assertThat(delivery.attempts()).isEqualTo(1);
                });
        webhooks.redeliver(endpointId, event.eventId());
        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);
        assertThat(webhooks.redeliver(endpointId, START, clock().instant())).isEqualTo(1);
        assertThat(relayAll(relay("one"))).containsExactly(DeliveryOutcome.DELIVERED);

        assertThat(receiver.received()).extracting(WebhookReceiver.Received::id)
                .containsExactly(event.eventId(), event.eventId(), event.eventId());
        assertThat(receiver.received()).extracting(WebhookReceiver.Received::bodyText).containsOnly(event.body());
        String eventId = event.eventId();
        assertThat(allRawItems()).as("rewritten in place: one item of the delivery")
                .filteredOn(item -> eventId.equals(item.get(ItemAttributes.EVENT_ID))
                        && item.containsKey(ItemAttributes.DELIVERY_STATUS))
                .singleElement().satisfies(item -> assertThat(item.get(ItemAttributes.DELIVERY_STATUS))
                        .isEqualTo(DeliveryStatus.DELIVERED.name()));
    }

    /** An event this release puts outside shard 0, the previous release's partition (the shard is the event's). */
    private WebhookEvent eventOutsideShardZero() {
        while (true) {
            WebhookEvent event = WebhookEvent.of(verification().audit().recordSuccess(
                    "old-" + RANDOM.nextInt(1_000_000), AuditEventType.DEVICE_REVOKED, Map.of(), ClientContext.none()));
            if (!TableKeys.delivery("ep_any", event.occurredAt(), event.eventId()).pk().equals("WEBHOOK#ep_any")) {
                return event;
            }
        }
    }

    /** A PENDING delivery as the previous release wrote it, attribute by attribute. */
    private static Map<String, Object> previousReleasesPendingDelivery(String endpointId, WebhookEvent event) {
        String at = Timestamps.format(event.occurredAt());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(ItemAttributes.PK, "WEBHOOK#" + endpointId);
        item.put(ItemAttributes.SK, "DELIVERY#" + at + "#" + event.eventId());
        item.put(ItemAttributes.ENDPOINT_ID, endpointId);
        item.put(ItemAttributes.EVENT_ID, event.eventId());
        item.put(ItemAttributes.EVENT_TYPE, event.type());
        item.put(ItemAttributes.USER_ID, event.userId());
        item.put(ItemAttributes.TIMESTAMP, at);
        item.put(ItemAttributes.BODY, event.body());
        item.put(ItemAttributes.DELIVERY_STATUS, DeliveryStatus.PENDING.name());
        item.put(ItemAttributes.ATTEMPTS, 0L);
        item.put(ItemAttributes.DUE_AT, event.occurredAt().toEpochMilli());
        item.put(ItemAttributes.OUTBOX_PK, "OUTBOX#DELIVERY#" + endpointId);
        item.put(ItemAttributes.OUTBOX_SK, at);
        item.put(ItemAttributes.TTL, event.occurredAt().plus(Duration.ofDays(30)).getEpochSecond());
        return item;
    }

    /**
     * One endpoint's deliveries are spread over shards, and every read of them answers as one partition would: the
     * relay's due ones oldest first, the listing newest first, a page of it cut at its {@code limit} and the next
     * page read up to just before the last one shown.
     */
    @Test
    void anEndpointsDeliveriesAreReadAcrossItsShardsInOrder() {
        String endpointId = webhooks.register(receiver().url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
        List<String> eventIds = new ArrayList<>();
        WebhookRelay relay = relay("one");
        for (int i = 0; i < 24; i++) {
            eventIds.add(EventIds.of(verification().audit().recordSuccess("shard-" + i, AuditEventType.DEVICE_REVOKED,
                    Map.of(), ClientContext.none())));
            indexCatchesUp();
            relay.fanOut(100);
            clock().advance(Duration.ofSeconds(1));
        }
        indexCatchesUp();

        assertThat(allRawItems().stream().filter(item -> item.containsKey(ItemAttributes.DELIVERY_STATUS))
                .map(item -> item.get(ItemAttributes.PK)).distinct()).as("spread over shards").hasSizeGreaterThan(1);
        assertThat(store().webhooks().dueDeliveries(endpointId, clock().instant(), 5)).extracting(Delivery::eventId)
                .containsExactlyElementsOf(eventIds.subList(0, 5));
        List<String> listed = new ArrayList<>();
        Optional<Instant> to = Optional.empty();
        for (List<Delivery> page = List.of(); listed.isEmpty() || !page.isEmpty(); ) {
            page = webhooks.deliveries(endpointId, Optional.empty(), to, Optional.of(5));
            assertThat(page).hasSizeLessThanOrEqualTo(5);
            page.forEach(delivery -> listed.add(delivery.eventId()));
            to = page.isEmpty() ? to : Optional.of(page.get(page.size() - 1).event().occurredAt().minusMillis(1));
        }
        Collections.reverse(eventIds);
        assertThat(listed).containsExactlyElementsOf(eventIds);
    }

    private boolean verifies(Webhooks.Registration endpoint, WebhookReceiver.Received request) {
        return new StandardWebhooksVerifier(endpoint.secret().text()).verifies(request.id(), request.timestamp(),
                request.signature(), request.body(), clock().instant());
    }

    private WebhookReceiver receiver() {
        WebhookReceiver receiver = new WebhookReceiver();
        receivers.add(receiver);
        return receiver;
    }

    private WebhookRelay relay(String owner) {
        RelayMetrics metrics = new RelayMetrics() {
            @Override
            public void attempted(String endpointId, DeliveryOutcome outcome) {
                outcomes.computeIfAbsent(outcome, key -> new AtomicInteger()).incrementAndGet();
            }

            @Override
            public void endpointDisabled(String endpointId) {
                disabled.incrementAndGet();
            }
        };
        return new WebhookRelay(store().webhooks(), webhooks, urls, new JdkWebhookTransport(), verification().audit(),
                metrics, clock(), owner);
    }

    /** Disables the endpoint through another store object, as another instance's operator would. */
    private static void disableOn(VerificationStore other, String endpointId) {
        WebhookEndpoint c = other.webhooks().findEndpoint(endpointId).orElseThrow();
        WebhookEndpoint disabled = new WebhookEndpoint(c.endpointId(), c.url(), c.eventTypes(), c.description(),
                EndpointStatus.DISABLED, c.createdAt(), c.secret(), c.previousSecret(), c.previousUntil(),
                c.failingSince(), Optional.of("disabled on another instance"), c.version() + 1);
        assertThat(other.webhooks().replaceEndpoint(disabled, c.version())).isTrue();
    }

    /** One pass of the relay as the runner makes it, on this thread: fan out, then attempt what is due. */
    private List<DeliveryOutcome> relayAll(WebhookRelay relay) {
        indexCatchesUp();
        relay.fanOut(100);
        indexCatchesUp();
        List<DeliveryOutcome> results = new ArrayList<>();
        for (Delivery due : relay.due(100)) {
            DeliveryOutcome outcome = relay.attempt(due);
            if (outcome != DeliveryOutcome.NOT_CLAIMED) {
                results.add(outcome);
            }
        }
        return results;
    }
}

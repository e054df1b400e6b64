package dev.verificationservice.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.RelayRunner;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookSettings;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay's writes on the embedded store, counted on its one writer, where each transaction costs a sync of the
 * file: a batch of events fans out in one transaction, an outcome and the endpoint's next claim share one, and a new
 * event is sent without waiting for the next poll. The receiver is a real HTTP server; the waits end on what they
 * wait for and their minute only bounds a hang.
 */
class SqliteRelayTest {

    private static final Duration PATIENCE = Duration.ofMinutes(1);
    /** Longer than any test: only a hand-out after an outcome, or new events, can send anything after the first. */
    private static final Duration NEVER = Duration.ofDays(1);

    @TempDir
    Path dataDirectory;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final WebhookReceiver receiver = new WebhookReceiver();
    private SqliteVerificationStore store;
    private Verification verification;
    private Webhooks webhooks;
    private WebhookRelay relay;
    private String endpointId;

    @BeforeEach
    void open() {
        SecureRandom random = new SecureRandom();
        store = SqliteVerificationStore.open(dataDirectory, clock);
        verification = Verification.builder().store(store).sender(new DevelopmentOutbox(clock)).clock(clock)
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(random)))).build();
        EndpointUrls urls = new EndpointUrls(false, AddressResolver.system());
        webhooks = new Webhooks(store.webhooks(), EncryptionKeyRing.fromBase64(List.of(
                EncryptionKeyRing.generateBase64Key(random))), urls, new SecureTokens(), clock);
        relay = new WebhookRelay(store.webhooks(), webhooks, urls, new JdkWebhookTransport(), verification.audit(),
                RelayMetrics.none(), clock, "relay-test");
        endpointId = webhooks.register(receiver.url().toString(), List.of(), Optional.empty()).endpoint()
                .endpointId();
    }

    @AfterEach
    void close() {
        receiver.close();
        store.close();
    }

    private long transactions() {
        return store.writer().transactions();
    }

    private void writeEvents(String prefix, int events) {
        for (int i = 0; i < events; i++) {
            verification.audit().recordSuccess(prefix + i, AuditEventType.DEVICE_REVOKED, Map.of(),
                    ClientContext.none());
        }
    }

    @Test
    void aBatchOfEventsFansOutInOneTransaction() {
        writeEvents("fan-", 40);
        long before = transactions();

        assertThat(relay.fanOut(100)).isEqualTo(40);

        assertThat(transactions() - before).isEqualTo(1);
        assertThat(relay.due(endpointId, 100)).hasSize(40);
        assertThat(store.webhooks().undeliveredEvents(100)).isEmpty();
    }

    @Test
    void outcomesAreWrittenInTheTransactionsThatClaimTheEndpointsNextDeliveries() throws Exception {
        int events = 12;
        writeEvents("next-", events);
        relay.fanOut(100);
        long before = transactions();

        try (RelayRunner runner = new RelayRunner(relay, new WebhookSettings(false, 2, 1, NEVER, 100)).start()) {
            assertThat(receiver.awaitReceived(events, PATIENCE)).as("%d of %d arrived", receiver.received().size(),
                    events).isTrue();
            awaitAllDelivered(events);
        }

        // The first claims, then at most one transaction per outcome: the outcomes answered meanwhile and the next
        // claims share it. Written one by one, they took two per delivery (a lease, an outcome).
        assertThat(transactions() - before).isBetween(2L, (long) events + 1);
        assertThat(receiver.distinctIds()).isEqualTo(events);
        assertThat(receiver.duplicates()).isZero();
    }

    @Test
    void aNewEventIsSentAtOnceNotAtTheNextPoll() throws Exception {
        writeEvents("before-", 1);
        try (RelayRunner runner = new RelayRunner(relay, new WebhookSettings(false, 2, 2, NEVER, 100)).start()) {
            assertThat(receiver.awaitReceived(1, PATIENCE)).as("the first poll sent the first event").isTrue();

            writeEvents("after-", 3);

            assertThat(receiver.awaitReceived(4, PATIENCE)).as("%d of 3 events written after the poll arrived",
                    receiver.received().size() - 1).isTrue();
        }
        assertThat(receiver.received()).extracting(WebhookReceiver.Received::bodyText)
                .anySatisfy(body -> assertThat(body).contains("\"userId\":\"after-2\""));
    }

    /** Waits until every delivery's outcome is written: the receiver has its requests a moment before that. */
    private void awaitAllDelivered(int events) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            List<Delivery> deliveries = store.webhooks().deliveries(endpointId, Instant.EPOCH, clock.instant(), 100);
            if (deliveries.size() == events
                    && deliveries.stream().allMatch(delivery -> delivery.status() == DeliveryStatus.DELIVERED)) {
                return;
            }
            assertThat(System.nanoTime()).as("every outcome is written: %s", deliveries).isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
    }
}

package dev.verificationservice.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.security.SealedSecret;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class EventSubscriptionsTest {

    private static final Instant START = Instant.parse("2026-11-30T10:00:00Z");

    private final AtomicReference<List<WebhookEndpoint>> stored = new AtomicReference<>(List.of());
    private final AtomicInteger reads = new AtomicInteger();
    private final EventSubscriptions view = new EventSubscriptions(() -> {
        reads.incrementAndGet();
        return stored.get();
    });

    @Test
    void anEntryIsAnEventWhenAnEndpointEnabledOrNotSubscribesToItsTypeAndNoneWhileWebhooksAreOff() {
        stored.set(List.of(endpoint("a", Set.of("code.sent"), EndpointStatus.DISABLED)));

        assertThat(view.isEvent(entry(AuditEventType.CODE_SENT, START))).isTrue();
        assertThat(view.isEvent(entry(AuditEventType.CODE_VERIFIED, START))).isFalse();

        stored.set(List.of(endpoint("a", Set.of("code.sent"), EndpointStatus.ENABLED),
                endpoint("b", Set.of(), EndpointStatus.ENABLED)));
        view.endpointsChanged();
        assertThat(view.isEvent(entry(AuditEventType.DEVICE_ADDED, START))).as("b takes every type").isTrue();

        view.off();
        assertThat(view.isEvent(entry(AuditEventType.CODE_SENT, START))).isFalse();
    }

    @Test
    void theEndpointsAreReadOncePerIntervalByTheEntriesTime() {
        view.refreshEvery(Duration.ofSeconds(30));
        view.isEvent(entry(AuditEventType.CODE_SENT, START));
        stored.set(List.of(endpoint("elsewhere", Set.of(), EndpointStatus.ENABLED)));

        assertThat(view.isEvent(entry(AuditEventType.CODE_SENT, START.plusSeconds(29)))).as("not yet read").isFalse();
        assertThat(view.isEvent(entry(AuditEventType.CODE_SENT, START.plusSeconds(30)))).isTrue();
        assertThat(view.isEvent(entry(AuditEventType.CODE_SENT, START.plusSeconds(59)))).isTrue();
        assertThat(reads).hasValue(2);
    }

    @Test
    void aReadThatFailsMakesEveryEntryAnEventUntilTheNextReadIsDue() {
        EventSubscriptions failing = new EventSubscriptions(() -> {
            throw new IllegalStateException("the store is unreachable");
        });

        assertThat(failing.isEvent(entry(AuditEventType.CODE_VERIFIED, START))).isTrue();
    }

    /**
     * A periodic read that started before an endpoint write of this instance, and answers after the read that
     * write made, is not kept: the newer list stays.
     */
    @Test
    void aSlowReadThatStartedBeforeAChangeNeverBringsTheOlderListBack() throws Exception {
        CountDownLatch slowReadStarted = new CountDownLatch(1);
        CountDownLatch changeRead = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        List<WebhookEndpoint> before = List.of(endpoint("a", Set.of("code.sent"), EndpointStatus.ENABLED));
        List<WebhookEndpoint> after = List.of(endpoint("a", Set.of("code.sent"), EndpointStatus.ENABLED),
                endpoint("b", Set.of("code.verified"), EndpointStatus.ENABLED));
        EventSubscriptions racing = new EventSubscriptions(() -> {
            if (calls.incrementAndGet() == 1) {
                slowReadStarted.countDown();
                await(changeRead);
                return before;
            }
            return after;
        });
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> slow = thread.submit(() -> racing.isEvent(entry(AuditEventType.CODE_SENT, START)));
            assertThat(slowReadStarted.await(1, TimeUnit.MINUTES)).isTrue();

            racing.endpointsChanged();
            changeRead.countDown();

            assertThat(slow.get(1, TimeUnit.MINUTES)).isTrue();
            assertThat(racing.isEvent(entry(AuditEventType.CODE_VERIFIED, START))).as("b, from the newer read")
                    .isTrue();
        } finally {
            thread.shutdownNow();
        }
    }

    /** While one thread reads the endpoints, the others answer from the view they have: one read at a time. */
    @Test
    void whileOneThreadReadsTheOthersAnswerFromTheViewTheyHave() throws Exception {
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        EventSubscriptions blocking = new EventSubscriptions(() -> {
            if (calls.incrementAndGet() == 2) {
                reading.countDown();
                await(answer);
            }
            return List.of(endpoint("a", Set.of("code.sent"), EndpointStatus.ENABLED));
        });
        blocking.isEvent(entry(AuditEventType.CODE_SENT, START));
        Instant due = START.plus(blocking.refreshInterval());
        CompletableFuture<Boolean> reader = CompletableFuture.supplyAsync(
                () -> blocking.isEvent(entry(AuditEventType.CODE_SENT, due)));
        try {
            assertThat(reading.await(1, TimeUnit.MINUTES)).isTrue();

            assertThat(blocking.isEvent(entry(AuditEventType.CODE_SENT, due))).isTrue();
            assertThat(blocking.isEvent(entry(AuditEventType.CODE_VERIFIED, due))).isFalse();
            assertThat(calls).as("no second read meanwhile").hasValue(2);
        } finally {
            answer.countDown();
        }
        assertThat(reader.get(1, TimeUnit.MINUTES)).isTrue();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the test never released the read");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static AuditEntry entry(AuditEventType type, Instant at) {
        return new AuditEntry("ada", at, "0000000000000000000000000001", type, Map.of(), Optional.empty(),
                Optional.empty(), Optional.empty(), true, Optional.empty(), Optional.empty());
    }

    private static WebhookEndpoint endpoint(String id, Set<String> types, EndpointStatus status) {
        return new WebhookEndpoint("ep_" + id, URI.create("https://hooks.example.com/" + id), types, Optional.empty(),
                status, START, new SealedSecret("k1", "nonce", "sealed"), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), 1);
    }
}

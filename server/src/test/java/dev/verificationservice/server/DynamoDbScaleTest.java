package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionLimits;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Kind;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.PartitionKey;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Usage;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The goal load of "DynamoDB at scale" scaled down 100 times, against the fault proxy's partition limits scaled
 * down as much ({@link PartitionLimits#DYNAMODB} / 100: 10 write and 30 read units a second per partition key of
 * the table and of each index): 200 send+verify pairs per virtual second over distinct users, one in ten of them
 * with a mistyped code first, and the webhook relay draining to one endpoint subscribed to those failures, 20
 * events a virtual second (the goal's 2,000 a second for one endpoint). The test moves the clock one second at a
 * time, after the second's pairs are done and the relay has delivered their events; the proxy refills the keys'
 * buckets on that clock only, so the machine's speed decides how long the test takes, never what it finds (but
 * for the relay's polls, which run on wall time and so read more per virtual second on a slow machine).
 *
 * <p>It fails when any request of the table or an index was throttled (naming each key, its throttles and its units
 * a second), when a virtual second completed fewer pairs than its target, or when events went undelivered. Load
 * and limits divided alike keep a shared key's load relative to its limit (the same keys share a hundredth of the
 * load under a hundredth of the limit). A key that names one of the run's users keeps DynamoDB's whole limit: one
 * user's pair is the same at any scale, and under a hundredth of the limit it would fail a design that is fine;
 * every other key (a code's, a delivery target's, every shared one) gets the divided limit, the unkind side.
 * {@link #aSharedKeyOverItsLimitIsCaught()} shows the test catches a hot key. The proxy does not emulate adaptive
 * capacity (docs/testing.md).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + ApiTestSupport.API_KEY,
        "verification.admin-api-keys=" + ApiTestSupport.ADMIN_KEY,
        "verification.secret-keys=" + ApiTestSupport.HMAC_KEY,
        "verification.encryption-keys=" + ApiTestSupport.ENCRYPTION_KEY,
        "verification.dev-outbox=true",
        "verification.outbox-size=5000",
        "verification.webhooks.allow-private-addresses=true",
        // The relay works when new events nudge it; its polls run on wall time, so they come rarely here, or a slow
        // machine would read more per virtual second than a fast one.
        "verification.webhooks.poll-interval=PT30S",
        "verification.dynamodb.max-attempts=2"})
@Import(DynamoDbScaleTest.VirtualClock.class)
// The proxy the context's store talks to ends with this class, so the context must too (see DynamoDbFaultTest).
@DirtiesContext
class DynamoDbScaleTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();
    private static final String TABLE = "verification-scale-" + UUID.randomUUID();
    /** The goal's limits per partition key, divided by 100 as the load is (but a user's own keys': see above). */
    private static final PartitionLimits LIMITS = PartitionLimits.DYNAMODB.dividedBy(100);
    /** How every user id of these runs begins. */
    private static final String USERS = "scale-";
    /** The goal's 20,000 pairs a second, divided by 100. */
    private static final int PAIRS_PER_SECOND = 200;
    /** Every this many pairs, one starts with a wrong code: 20 events a virtual second for the endpoint. */
    private static final int MISTYPED_EVERY = 10;
    /** How long the relay may take, in wall time, to deliver a virtual second's events: it bounds a stall only. */
    private static final Duration DRAIN_PATIENCE = Duration.ofMinutes(2);
    private static final MutableClock CLOCK = new MutableClock(TestClockConfiguration.START);
    /** What the limits of the keys of the OUTBOX index are divided by, beyond the table's: 1 but in the hot-key test. */
    private static volatile double sharedKeyDivisor = 1;
    private static DynamoDbFaultProxy proxy;

    static {
        System.setProperty("aws.region", "us-east-1");
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test");
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class VirtualClock {
        /** The service's clock is the one the proxy's partition limits are measured on. */
        @Bean
        @Primary
        MutableClock scaleClock() {
            return CLOCK;
        }
    }

    @LocalServerPort
    int port;

    private ApiClient api;
    private ApiClient admin;
    private WebhookReceiver receiver;
    private String endpointId;

    @DynamicPropertySource
    static void dynamoDbBehindTheLimits(DynamicPropertyRegistry registry) {
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(), DynamoDbFaultProxy.Options.defaults()
                .emulatingTransactions().measuredBy(CLOCK::epochNanos)
                .withPartitionLimits(DynamoDbScaleTest::limitsOf));
        ProxiedDynamoDbTable.register(registry, proxy, TABLE);
    }

    private static PartitionLimits limitsOf(PartitionKey key) {
        if (key.value().contains(USERS)) {
            return PartitionLimits.DYNAMODB;
        }
        return key.index().equals("OUTBOX") ? LIMITS.dividedBy(sharedKeyDivisor) : LIMITS;
    }

    @AfterAll
    static void stopProxy() {
        proxy.close();
    }

    @BeforeEach
    void oneEndpoint() {
        api = new ApiClient(port, ApiTestSupport.API_KEY);
        admin = new ApiClient(port, ApiTestSupport.ADMIN_KEY);
        receiver = new WebhookReceiver();
        Answer registered = admin.post("/v1/admin/webhooks", Map.of("url", receiver.url().toString(),
                "eventTypes", List.of("code.verification.failed"), "description", "scale test receiver"));
        assertThat(registered.status()).as(registered.raw().body()).isEqualTo(201);
        endpointId = registered.text("endpointId");
    }

    @AfterEach
    void removeEndpoint() {
        sharedKeyDivisor = 1;
        admin.delete("/v1/admin/webhooks/" + endpointId);
        receiver.close();
    }

    /**
     * The same load with the keys every user shares (those of the OUTBOX index) held to a tenth of their limit: the
     * test sees the hot key, names it, and does not pass.
     */
    @Test
    void aSharedKeyOverItsLimitIsCaught() throws Exception {
        sharedKeyDivisor = 10;
        Run run = run(2, false);

        assertThat(run.throttled()).as(run.report()).isNotEmpty()
                .anySatisfy(used -> assertThat(used.key().index()).isEqualTo("OUTBOX"));
        assertThat(run.report()).contains("/OUTBOX ");
    }

    /** What a run found: pairs per virtual second, events delivered, and each key's use. */
    private record Run(List<Integer> completedPerSecond, long delivered, int seconds, List<Usage> usage,
                       List<Usage> throttled) {

        String report() {
            StringBuilder report = new StringBuilder();
            report.append(String.format(Locale.ROOT, "pairs per virtual second %s, events delivered %d%n",
                    completedPerSecond, delivered));
            for (Usage used : throttled) {
                report.append(String.format(Locale.ROOT, "  throttled %s: %d write, %d read throttles; %s%n",
                        used.key(), used.writeThrottles(), used.readThrottles(), rates(used)));
            }
            for (Kind kind : Kind.values()) {
                usage.stream().sorted((a, b) -> Double.compare(b.units(kind), a.units(kind))).limit(3)
                        .forEach(used -> report.append(String.format(Locale.ROOT, "  hottest %s key %s: %s%n",
                                kind.name().toLowerCase(Locale.ROOT), used.key(), rates(used))));
            }
            return report.toString();
        }

        private String rates(Usage used) {
            String admitted = String.format(Locale.ROOT, "%.1f write, %.1f read units a second admitted",
                    used.writeUnits() / seconds, used.readUnits() / seconds);
            return used.throttles() == 0 ? admitted : admitted + String.format(Locale.ROOT,
                    ", %.1f write, %.1f read refused (retries included)", used.refusedWriteUnits() / seconds,
                    used.refusedReadUnits() / seconds);
        }
    }

    /**
     * {@code seconds} virtual seconds of {@link #PAIRS_PER_SECOND} pairs each, every pair a new user's: the second's
     * pairs on 16 threads, then (if {@code awaitDeliveries}) the relay's deliveries of their events awaited, until
     * a second's are not there in {@link #DRAIN_PATIENCE} (a throttled relay may never get there: no use waiting
     * again), then the clock moved on a second.
     */
    private Run run(int seconds, boolean awaitDeliveries) throws Exception {
        PartitionThrottling partitions = proxy.partitions();
        partitions.reset();
        String prefix = USERS + UUID.randomUUID().toString().substring(0, 8) + "-";
        List<Integer> completed = new ArrayList<>();
        long expectedEvents = 0;
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            for (int second = 0; second < seconds; second++) {
                List<Future<Boolean>> pairs = new ArrayList<>();
                for (int i = 0; i < PAIRS_PER_SECOND; i++) {
                    String user = prefix + second + "-" + i;
                    boolean mistyped = i % MISTYPED_EVERY == 0;
                    pairs.add(threads.submit(() -> pair(user, mistyped)));
                }
                int done = 0;
                for (int i = 0; i < pairs.size(); i++) {
                    boolean completedPair = pairs.get(i).get();
                    done += completedPair ? 1 : 0;
                    expectedEvents += completedPair && i % MISTYPED_EVERY == 0 ? 1 : 0;
                }
                completed.add(done);
                if (awaitDeliveries) {
                    awaitDeliveries = receiver.awaitReceived((int) expectedEvents, DRAIN_PATIENCE);
                }
                CLOCK.advance(Duration.ofSeconds(1));
            }
        } finally {
            threads.shutdownNow();
        }
        // Events arrive at least once: a second delivery of one is not a second event.
        long delivered = receiver.received().stream().filter(request -> request.bodyText().contains(prefix))
                .map(WebhookReceiver.Received::id).distinct().count();
        return new Run(completed, delivered, seconds, partitions.usage(), partitions.throttled());
    }

    /**
     * One user's send and verify, after a wrong code if {@code mistyped}: whether all succeeded, the code read from
     * the development outbox.
     */
    private boolean pair(String user, boolean mistyped) {
        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", ApiTestSupport.emailOf(user)));
        if (sent.status() != 202) {
            return false;
        }
        Answer outbox = api.get("/dev/outbox?userId=" + user);
        if (outbox.status() != 200 || outbox.json().get("messages").isEmpty()) {
            return false;
        }
        String code = outbox.json().get("messages").get(0).get("code").asString();
        if (mistyped) {
            Answer refused = api.post("/v1/codes/verify", Map.of("code", ApiTestSupport.wrongFor(code), "userId", user,
                    "codeType", "EMAIL_VERIFICATION"));
            if (refused.status() != 200 || refused.json().get("valid").asBoolean()) {
                return false;
            }
        }
        Answer verified = api.post("/v1/codes/verify", Map.of("code", code, "userId", user,
                "codeType", "EMAIL_VERIFICATION"));
        return verified.status() == 200 && verified.json().get("valid").asBoolean();
    }
}

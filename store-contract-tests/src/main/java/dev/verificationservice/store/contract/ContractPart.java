package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One concept of the contract suite, run as a {@code @Nested} class of the store's test on that test's fixture.
 * The outer class opens a fresh store before each test (its {@code @BeforeEach} runs first, also for a nested
 * class); the part reads the fixture through it at every call, so a provider that reopens its store is seen.
 */
public abstract class ContractPart implements ContractFixture {

    protected static final SecureRandom RANDOM = new SecureRandom();
    protected static final RateLimitPolicy FIVE = new RateLimitPolicy(5, Duration.ofMinutes(15));

    private final ContractFixture fixture;

    protected ContractPart(ContractFixture fixture) {
        this.fixture = fixture;
    }

    @Override
    public MutableClock clock() {
        return fixture.clock();
    }

    @Override
    public VerificationStore store() {
        return fixture.store();
    }

    @Override
    public DevelopmentOutbox outbox() {
        return fixture.outbox();
    }

    @Override
    public String keyBase64() {
        return fixture.keyBase64();
    }

    @Override
    public SecretKeyRing keys() {
        return fixture.keys();
    }

    @Override
    public String encryptionKeyBase64() {
        return fixture.encryptionKeyBase64();
    }

    @Override
    public Verification verification() {
        return fixture.verification();
    }

    @Override
    public Verification build(SecretKeyRing ring, CodeSender sender, VerificationSettings settings) {
        return fixture.build(ring, sender, settings);
    }

    @Override
    public VerificationStore anotherInstance() {
        return fixture.anotherInstance();
    }

    @Override
    public void putRawItem(Map<String, Object> item) {
        fixture.putRawItem(item);
    }

    @Override
    public List<Map<String, Object>> allRawItems() {
        return fixture.allRawItems();
    }

    @Override
    public void indexCatchesUp() {
        fixture.indexCatchesUp();
    }

    @Override
    public Optional<String> missingTransactions() {
        return fixture.missingTransactions();
    }

    @Override
    public Optional<AnswerLosingStore> answerLosingStore() {
        return fixture.answerLosingStore();
    }

    // Helpers shared by several parts

    protected static String wrongCode(String code) {
        return code.equals("000000") ? "111111" : "000000";
    }

    protected static FailureReason reasonOf(VerificationResult result) {
        assertThat(result).isInstanceOf(VerificationResult.Invalid.class);
        return ((VerificationResult.Invalid) result).reason();
    }

    protected static Place placeOf(String userId, String action, String attemptId) {
        Instant windowStart = RateLimiter.windowStart(START, FIVE.window());
        return new Place(new CounterWindow(userId, action, windowStart, windowStart.plus(Duration.ofHours(2))), attemptId);
    }

    protected static void assertField(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo(field));
    }

    protected static void assertRefusedBy(IssueResult result, String action) {
        assertThat(result).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo(action));
    }

    /**
     * Registers, through {@code on}, an endpoint subscribed to {@code eventTypes} (none: every type), so that the
     * audit entries of those types are events; its URL takes no request (nothing here relays).
     */
    protected WebhookEndpoint subscribe(VerificationStore on, String... eventTypes) {
        Webhooks endpoints = new Webhooks(on.webhooks(), EncryptionKeyRing.fromBase64(List.of(encryptionKeyBase64())),
                new EndpointUrls(false, AddressResolver.system()), new SecureTokens(), clock());
        return endpoints.register("http://localhost:9/events", List.of(eventTypes), Optional.empty()).endpoint();
    }

    /** Runs {@code tasks} copies of the call at once (released together by a latch) on a pool of threads. */
    protected static <T> List<T> runConcurrently(int tasks, Callable<T> call) throws Exception {
        int threads = Math.min(tasks, 50);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(2, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}

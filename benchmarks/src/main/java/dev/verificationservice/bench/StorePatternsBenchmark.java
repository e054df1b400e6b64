package dev.verificationservice.bench;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.VerificationStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Each store's access patterns, one call per operation on one thread: the embedded store on a SQLite file
 * ({@code synchronous=FULL}, as shipped) and the DynamoDB store on dynalite through the recording proxy that
 * emulates transactions. Latency on dynalite says little about DynamoDB (a Node.js engine on this machine); the
 * round trips and capacity units per API operation come from the cost probe instead.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class StorePatternsBenchmark {

    @Param({"embedded", "dynamodb"})
    public String store;

    private BenchStores.Opened opened;
    private VerificationStore repository;
    private AuditLog audit;
    private final List<VerificationCode> stored = new ArrayList<>();
    private final AtomicLong sequence = new AtomicLong();
    private final SecureTokens tokens = new SecureTokens();
    private static final String AUDITED_USER = "bench-audited";

    @Setup(Level.Trial)
    public void open() {
        opened = BenchStores.open(store);
        repository = opened.store;
        audit = new AuditLog(repository.audit(), Clock.systemUTC(), Optional.of(Duration.ofDays(90)), tokens);
        for (int i = 0; i < 1000; i++) {
            Fixtures.KnownCode code = Fixtures.numeric("bench-user-" + i);
            repository.codes().placeCode(code.stored(), Fixtures.attemptId());
            stored.add(code.stored());
        }
        for (int i = 0; i < 60; i++) {
            audit.recordSuccess(AUDITED_USER, AuditEventType.CODE_SENT, Map.of("codeType", "EMAIL_VERIFICATION"),
                    ClientContext.none());
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        opened.close();
    }

    /** Access pattern 1: GetItem of a user's current code (a NUMERIC code, in its slot). */
    @Benchmark
    public Optional<VerificationCode> validateCode() {
        VerificationCode code = stored.get(ThreadLocalRandom.current().nextInt(stored.size()));
        return repository.codes().findCurrentCode(code.userId(), code.codeType(), code.digest());
    }

    /** A new code: one conditional write of the user's code slot. */
    @Benchmark
    public CodePlacement insertCode() {
        return repository.codes().placeCode(Fixtures.numeric("bench-new-" + sequence.incrementAndGet()).stored(),
                Fixtures.attemptId());
    }

    /** Access pattern 7: take a place in a rate-limit window (conditional UpdateItem), a new counter each time. */
    @Benchmark
    public long takeRateLimitPlace() {
        Instant now = Instant.now();
        Instant windowStart = RateLimiter.windowStart(now, Duration.ofMinutes(15));
        return repository.counters().takePlace(new Place(new CounterWindow("bench-counter-" + sequence.incrementAndGet(),
                "SEND_EMAIL_VERIFICATION", windowStart, windowStart.plus(Duration.ofMinutes(75))), tokens.attemptId()), 5);
    }

    /** Reading a user's counters over two windows (the rate-limit state, a NUMERIC attempt's look-back). */
    @Benchmark
    public List<RateLimitCounter> readRateLimitWindows() {
        Instant now = Instant.now();
        Instant windowStart = RateLimiter.windowStart(now, Duration.ofMinutes(15));
        return repository.counters().findCounters("bench-user-1", "VERIFY_EMAIL_VERIFICATION",
                windowStart.minus(Duration.ofMinutes(15)), windowStart, now);
    }

    /** A new audit entry: conditional PutItem. */
    @Benchmark
    public boolean appendAudit() {
        AuditEntry entry = audit.newEntry("bench-appender", AuditEventType.CODE_SENT, true, Optional.empty(),
                Map.of("codeType", CodeType.EMAIL_VERIFICATION.name()), ClientContext.none());
        return repository.audit().appendAudit(entry);
    }

    /** Access pattern 6: one page of 50 audit entries, newest first. */
    @Benchmark
    public int queryAuditPage() {
        Instant now = Instant.now();
        return repository.audit().queryAudit(AUDITED_USER, Instant.EPOCH, now, Optional.empty(), 51, now).size();
    }
}

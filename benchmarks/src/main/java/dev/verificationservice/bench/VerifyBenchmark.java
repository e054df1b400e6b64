package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.table.TableKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * A whole NUMERIC verification through the core ({@code CodeService.verify}: the failure-count place with the
 * look-back read beside it, then the consume transaction with its audit entry and give-back), each on a fresh
 * code, against a table that already holds {@code storedCodes} codes. Every iteration verifies a batch of
 * {@value #BATCH} codes written before it (untimed) and deletes that batch's rows afterwards, so the table keeps
 * its size. The score is the time of one batch: divide by {@value #BATCH} for one verification.
 *
 * <p>{@code synchronous}: FULL as shipped, or NORMAL (switched on the open store by the benchmark) to show what
 * syncing every commit costs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, batchSize = VerifyBenchmark.BATCH)
@Measurement(iterations = 6, batchSize = VerifyBenchmark.BATCH)
public class VerifyBenchmark {

    public static final int BATCH = 250;

    @Param({"embedded", "dynamodb"})
    public String store;

    @Param({"1000"})
    public int storedCodes;

    @Param({"FULL"})
    public String synchronous;

    private BenchStores.Opened opened;
    private Verification verification;
    private final List<Fixtures.KnownCode> batch = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger invalid = new AtomicInteger();
    private int iteration;

    @Setup(Level.Trial)
    public void open() throws Exception {
        if (store.equals("embedded")) {
            Path dataDir = storedCodes >= 100_000 ? prefilledDirectory(storedCodes) : BenchStores.temporaryDirectory();
            opened = BenchStores.embedded(dataDir);
            if (storedCodes < 100_000) {
                fill(opened.databaseFile(), "stored-", storedCodes);
            }
            if (!synchronous.equals("FULL")) {
                List<String> modes = SqliteFiles.setSynchronous((SqliteVerificationStore) opened.store, synchronous);
                System.out.println("synchronous on every pooled connection: " + modes);
            }
            System.out.println("rows in the table: " + SqliteFiles.countRows(opened.databaseFile(), "")
                    + ", codes: " + SqliteFiles.countRows(opened.databaseFile(), TableKeys.codesPrefix()));
        } else {
            opened = BenchStores.open(store);
            ExecutorService writers = Executors.newFixedThreadPool(8);
            for (int i = 0; i < storedCodes; i++) {
                String userId = "stored-" + i;
                writers.execute(() -> opened.store.codes().placeCode(Fixtures.numeric(userId).stored(), Fixtures.attemptId()));
            }
            writers.shutdown();
            writers.awaitTermination(10, TimeUnit.MINUTES);
        }
        verification = Fixtures.verification(opened.store, new Fixtures.KeepingSender());
    }

    /** A file with {@code count} stored codes, made once and kept under benchmarks/target for later runs. */
    static Path prefilledDirectory(int count) {
        Path dataDir = Path.of("benchmarks/target/bench-data/prefilled-" + count).toAbsolutePath();
        Path done = dataDir.resolve("filled");
        if (Files.exists(done)) {
            return dataDir;
        }
        long start = System.nanoTime();
        BenchStores.embedded(dataDir).close(); // the schema, as the store makes it
        Path file = dataDir.resolve(SqliteVerificationStore.DATABASE_FILE);
        for (int from = 0; from < count; from += 100_000) {
            fill(file, "stored-" + from + "-", Math.min(100_000, count - from));
        }
        try {
            Files.writeString(done, Integer.toString(count));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        System.out.printf("filled %s with %d codes in %.1f s%n", file, count, (System.nanoTime() - start) / 1e9);
        return dataDir;
    }

    static void fill(Path file, String userPrefix, int count) {
        List<Map<String, Object>> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            items.add(CodeItems.codeItem(Fixtures.filler(userPrefix + i), Fixtures.fillerIssueId()));
        }
        SqliteFiles.insertItems(file, items);
    }

    @Setup(Level.Iteration)
    public void newBatch() throws Exception {
        iteration++;
        batch.clear();
        next.set(0);
        for (int i = 0; i < BATCH; i++) {
            batch.add(Fixtures.numeric("vb-" + iteration + "-" + i));
        }
        if (opened.dynamo == null) {
            List<Map<String, Object>> items = new ArrayList<>();
            batch.forEach(code -> items.add(CodeItems.codeItem(code.stored(), Fixtures.attemptId())));
            SqliteFiles.insertItems(opened.databaseFile(), items);
        } else {
            ExecutorService writers = Executors.newFixedThreadPool(8);
            batch.forEach(code -> writers.execute(() -> opened.store.codes().placeCode(code.stored(), Fixtures.attemptId())));
            writers.shutdown();
            writers.awaitTermination(5, TimeUnit.MINUTES);
        }
    }

    @TearDown(Level.Iteration)
    public void dropBatch() {
        if (opened.dynamo == null) {
            String users = "vb-" + iteration + "-";
            List<String> prefixes = new ArrayList<>(List.of(TableKeys.user(users), TableKeys.rateLimitPartitionsPrefix(users)));
            batch.forEach(code -> prefixes.add(TableKeys.code(code.stored().digest()).pk()));
            SqliteFiles.deleteByPrefix(opened.databaseFile(), prefixes);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (invalid.get() > 0) {
            System.out.println("WARNING: " + invalid.get() + " verifications were not valid");
        }
        opened.close();
    }

    @Benchmark
    public VerificationResult verifyNumeric() {
        Fixtures.KnownCode code = batch.get(next.getAndIncrement());
        VerificationResult result = verification.codes().verify(VerifyRequest.numeric(code.code(), code.userId(), code.type()));
        if (!(result instanceof VerificationResult.Valid)) {
            invalid.incrementAndGet();
        }
        return result;
    }
}

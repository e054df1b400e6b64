package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import dev.verificationservice.table.CodeItems;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP load run: the real server jar, started as the README starts it, on the embedded store or on
 * dynalite (behind the recording, transaction-emulating proxy), loaded by wrk with {@value #THREADS} threads and
 * {@value #CONNECTIONS} connections. First every operation runs for a while unmeasured (the JIT warms up), then
 * each gets a run as fast as the server answers (its maximum), and on the embedded store a paced run at about
 * half that rate. The no-op floor (the
 * liveness probe of the same server) is measured before and after the operations.
 */
final class LoadRun {

    static final int THREADS = 2;
    static final int CONNECTIONS = 32;
    static final int HALF_LOAD_CONNECTIONS = 8;

    /**
     * One wrk run, with what the server spent on each request meanwhile: CPU (all its threads, the JIT's included)
     * and bytes handed to write calls.
     */
    record Result(String operation, double requestsPerSecond, double p50Millis, double p99Millis, long requests,
                  long ok, long bad, long reused, long socketErrors, int badStatus, double serverCpuMillisPerRequest,
                  double serverBytesWrittenPerRequest) {
    }

    /** All runs on one store. */
    record Outcome(String store, Map<String, Result> maximum, Map<String, Result> halfLoad, Result noopBefore,
                   Result noopAfter) {

        /**
         * The floor: the higher of the no-op runs before and after the operations (the one before comes after the
         * warm-up, but the JIT may still be compiling on two busy cores; the higher floor is the stricter one).
         */
        double noopRate() {
            return Math.max(noopBefore.requestsPerSecond(), noopAfter.requestsPerSecond());
        }
    }

    /**
     * How long each run lasts, and how much data the consuming runs need (codes are used up). An operation whose
     * requests make their own data (the floor, a send, a device registration: a new user each) warms for
     * {@code steadyWarmUp} before its run, long enough for the JIT to finish compiling its path on two busy cores;
     * one that uses prepared codes or devices up warms for {@code warmUp}, which its warm-up data lasts.
     */
    record Plan(Duration warmUp, Duration steadyWarmUp, Duration measure, Duration half, int codesPerRun, int devices,
                int auditedUsers, boolean halfLoad) {
    }

    /** Operations whose every request makes a new user, so that a warm-up of any length needs no prepared data. */
    private static final Set<String> MAKE_THEIR_OWN_DATA = Set.of(Operations.NOOP, Operations.SEND,
            Operations.DEVICE_REGISTER);

    /** The runs that use codes up, in the order of their data files. */
    private static final List<String> PHASES = List.of("warmup", "warmup-again", "maximum", "calibration", "half");
    private static final double[] PHASE_SHARE = {0.25, 0.2, 1, 0.25, 0.5};

    private static final Map<String, String> KINDS = Map.of(
            Operations.NOOP, "noop", Operations.SEND, "send", Operations.CHECK, "check",
            Operations.VERIFY_NUMERIC, "verify_numeric", Operations.VERIFY_LINK, "verify_link",
            Operations.DEVICE_REGISTER, "device_register", Operations.DEVICE_VERIFY, "device_verify",
            Operations.RATE_LIMITS, "rate_limits", Operations.AUDIT_PAGE, "audit");

    private final Path work;
    private final Plan plan;
    private final Consumer<String> log;
    /** The operations measured (the no-op floor always is). */
    private final List<String> measured;
    private final AtomicInteger runs = new AtomicInteger();
    private final Map<String, List<Path>> data = new LinkedHashMap<>();

    private LoadRun(Path work, Plan plan, Consumer<String> log, List<String> measured) {
        this.work = work;
        this.plan = plan;
        this.log = log;
        this.measured = measured;
    }

    static Outcome embedded(Path work, List<String> serverCommand, Plan plan, Consumer<String> log) {
        return embedded(new LoadRun(work.resolve("embedded"), plan, log, Operations.API), serverCommand, false);
    }

    /**
     * The embedded send alone, between the two no-op floors: the quickest run that gives the send's ratio to the
     * floor (the other operations' data is prepared small, since nothing here uses it).
     */
    static Outcome embeddedSend(Path work, List<String> serverCommand, Plan plan, Consumer<String> log) {
        return embedded(new LoadRun(work.resolve("embedded-send"), plan, log, List.of(Operations.SEND)), serverCommand,
                false);
    }

    /**
     * Send and verify on the embedded store with one webhook endpoint registered (a receiver in this JVM that answers
     * 204): against {@link #embedded}'s numbers, what the relay's work costs the API. The load's label is
     * {@code embedded+webhook}; the receiver's count says how many events it got meanwhile.
     */
    static Outcome embeddedWithWebhook(Path work, List<String> serverCommand, Plan plan, Consumer<String> log) {
        return embedded(new LoadRun(work.resolve("embedded-webhook"), plan, log,
                List.of(Operations.SEND, Operations.VERIFY_NUMERIC)), serverCommand, true);
    }

    private static Outcome embedded(LoadRun run, List<String> serverCommand, boolean webhook) {
        Consumer<String> log = run.log;
        Path dataDir = run.work.resolve("data");
        long started = System.nanoTime();
        try (BenchStores.Opened opened = BenchStores.embedded(dataDir)) {
            // Only to prepare faster: the server opens the file again with synchronous=FULL.
            SqliteFiles.setSynchronous((SqliteVerificationStore) opened.store, "NORMAL");
            run.prepare(opened.store, items -> SqliteFiles.insertItems(opened.databaseFile(), items));
        }
        log.accept(String.format("embedded: data prepared in %.1f s", (System.nanoTime() - started) / 1e9));
        try (ServerProcess server = ServerProcess.start(serverCommand, Map.of(
                "VERIFICATION_DATA_DIR", dataDir.toString(),
                "VERIFICATION_API_KEYS", Fixtures.API_KEY, "VERIFICATION_SECRET_KEYS", Fixtures.HMAC_KEY,
                "VERIFICATION_ADMIN_API_KEYS", BenchReceiver.ADMIN_KEY,
                "RUN_SKIP_BUILD", "1"), ServerProcess.freePort(), run.work.resolve("server.log"));
             BenchReceiver receiver = new BenchReceiver()) {
            server.awaitReady(Duration.ofSeconds(120));
            if (!webhook) {
                return run.operations("embedded", server);
            }
            receiver.register(server.base(), Duration.ofMinutes(10));
            log.accept("embedded+webhook: the first event arrived after the prepared data's were fanned out");
            long before = receiver.received();
            Outcome outcome = run.operations("embedded+webhook", server);
            log.accept("embedded+webhook: the receiver got " + (receiver.received() - before)
                    + " events during the runs");
            return outcome;
        }
    }

    static Outcome dynamodb(Path work, List<String> serverCommand, Plan plan, Consumer<String> log) {
        LoadRun run = new LoadRun(work.resolve("dynamodb"), plan, log, Operations.API);
        try (BenchDynamo dynamo = BenchDynamo.start()) {
            long started = System.nanoTime();
            VerificationStore store = new DynamoDbVerificationStore(dynamo.client(List.of()), BenchDynamo.TABLE,
                    new ConsumedCapacityRecorder(), false);
            // Codes straight into the engine (plain puts need no emulation), the rest through the proxy.
            VerificationStore engine = new DynamoDbVerificationStore(dynamo.rawClient(), BenchDynamo.TABLE,
                    new ConsumedCapacityRecorder(), false);
            run.prepare(store, items -> parallel(items, item -> engine.codes().placeCode(CodeItems.code(item), Fixtures.attemptId())));
            log.accept(String.format("dynamodb: data prepared in %.1f s", (System.nanoTime() - started) / 1e9));
            try (ServerProcess server = ServerProcess.start(serverCommand, Map.ofEntries(
                    Map.entry("VERIFICATION_STORE", "dynamodb"),
                    Map.entry("VERIFICATION_DYNAMODB_ENDPOINT", dynamo.endpoint().toString()),
                    Map.entry("VERIFICATION_DYNAMODB_TABLE", BenchDynamo.TABLE),
                    Map.entry("VERIFICATION_DYNAMODB_REQUIRE_TTL", "false"),
                    // dynalite on two shared cores is far slower than DynamoDB: generous timeouts, so that the run
                    // measures the engine's pace and not the 503s of the production timeouts (3 s per call).
                    Map.entry("VERIFICATION_DYNAMODB_CALL_TIMEOUT", "PT60S"),
                    Map.entry("VERIFICATION_DYNAMODB_ATTEMPT_TIMEOUT", "PT30S"),
                    Map.entry("VERIFICATION_DEV_OUTBOX", "true"),
                    Map.entry("VERIFICATION_API_KEYS", Fixtures.API_KEY),
                    Map.entry("VERIFICATION_SECRET_KEYS", Fixtures.HMAC_KEY),
                    Map.entry("VERIFICATION_ENCRYPTION_KEYS", Fixtures.ENCRYPTION_KEY),
                    Map.entry("AWS_REGION", "us-east-1"), Map.entry("AWS_ACCESS_KEY_ID", "test"),
                    Map.entry("AWS_SECRET_ACCESS_KEY", "test"), Map.entry("RUN_SKIP_BUILD", "1")),
                    ServerProcess.freePort(), run.work.resolve("server.log"))) {
                server.awaitReady(Duration.ofSeconds(120));
                return run.operations("dynamodb", server);
            }
        }
    }

    private static <T> void parallel(List<T> items, Consumer<T> action) {
        ExecutorService workers = Executors.newFixedThreadPool(8);
        items.forEach(item -> workers.execute(() -> action.accept(item)));
        workers.shutdown();
        try {
            if (!workers.awaitTermination(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("preparing took too long");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The data the runs use, written to the store before the server starts: codes whose clear text is known
     * (a file per run, since a verification uses its code up), devices with their secrets, users with 55 audit
     * entries each.
     */
    private void prepare(VerificationStore store, Consumer<List<Map<String, Object>>> insertCodes) {
        try {
            Files.createDirectories(work.resolve("lists"));
            List<Map<String, Object>> items = new ArrayList<>();
            for (String operation : List.of(Operations.VERIFY_NUMERIC, Operations.VERIFY_LINK)) {
                List<Path> files = new ArrayList<>();
                // A file per run, since a verification uses its code up: the two warm-ups, the maximum, and at half
                // load the calibration and the measured run (indexes as in PHASES).
                for (int phase = 0; phase < (plan.halfLoad() ? PHASES.size() : 3); phase++) {
                    int count = (int) (plan.codesPerRun() * PHASE_SHARE[phase]);
                    List<String> lines = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        String user = "load-" + KINDS.get(operation) + "-" + PHASES.get(phase) + "-" + i;
                        Fixtures.KnownCode code = operation.equals(Operations.VERIFY_NUMERIC) ? Fixtures.numeric(user)
                                : Fixtures.link(user);
                        items.add(CodeItems.codeItem(code.stored(), Fixtures.attemptId()));
                        lines.add(operation.equals(Operations.VERIFY_NUMERIC) ? user + " " + code.code() : code.code());
                    }
                    files.add(write(KINDS.get(operation) + "-" + PHASES.get(phase), lines));
                }
                data.put(operation, files);
            }
            List<String> checks = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                Fixtures.KnownCode code = Fixtures.numeric("load-check-" + i);
                items.add(CodeItems.codeItem(code.stored(), Fixtures.attemptId()));
                checks.add(code.userId() + " " + code.code());
            }
            data.put(Operations.CHECK, List.of(write("check", checks)));
            insertCodes.accept(items);

            Verification verification = Fixtures.verification(store, new Fixtures.KeepingSender());
            List<String> devices = Collections.synchronizedList(new ArrayList<>());
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < plan.devices(); i++) {
                indexes.add(i);
            }
            parallel(indexes, i -> {
                RegisteredDevice device = verification.devices().register(
                        DeviceRegistration.of("load-device-user-" + i, "load-device-" + i, "WEB"));
                devices.add(device.deviceId() + " " + device.secret());
            });
            data.put(Operations.DEVICE_VERIFY, List.of(write("devices", devices)));

            List<String> users = new ArrayList<>();
            List<Integer> entries = new ArrayList<>();
            for (int i = 0; i < plan.auditedUsers(); i++) {
                users.add("load-audited-" + i);
                for (int e = 0; e < 55; e++) {
                    entries.add(i);
                }
            }
            parallel(entries, i -> verification.audit().recordSuccess("load-audited-" + i, AuditEventType.CODE_SENT,
                    Map.of("codeType", "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL",
                            "deliveryTarget", "b***@example.com"), ClientContext.none()));
            data.put(Operations.AUDIT_PAGE, List.of(write("audited-users", users)));
            data.put(Operations.RATE_LIMITS, List.of(write("users", users)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Path write(String name, List<String> lines) throws IOException {
        Path file = work.resolve("lists").resolve(name + ".txt");
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    private Outcome operations(String store, ServerProcess server) {
        Map<String, Result> maximum = new LinkedHashMap<>();
        Map<String, Result> half = new LinkedHashMap<>();
        // Warm-up: the JIT compiles the container's, the framework's and the service's paths before any
        // measurement, the floor's included (each operation once more just before its own run).
        wrk(server, Operations.NOOP, 0, plan.steadyWarmUp(), CONNECTIONS, 0);
        for (String operation : measured) {
            wrk(server, operation, 0, MAKE_THEIR_OWN_DATA.contains(operation) ? plan.steadyWarmUp() : plan.warmUp(),
                    CONNECTIONS, 0);
        }
        Result noopBefore = wrk(server, Operations.NOOP, 0, plan.measure(), CONNECTIONS, 0);
        log.accept(store + ": " + noopBefore);
        for (String operation : measured) {
            wrk(server, operation, 1, Duration.ofSeconds(1), CONNECTIONS, 0);
            Result result = wrk(server, operation, 2, plan.measure(), CONNECTIONS, 0);
            maximum.put(operation, result);
            log.accept(store + ": " + result);
            if (plan.halfLoad()) {
                // Each connection sends, waits for the answer, then pauses: the pause is calibrated by a short run
                // so that the rate reached is about half the maximum (the answer time counts in each cycle).
                double target = result.requestsPerSecond() / 2;
                double cycle = HALF_LOAD_CONNECTIONS * 1000 / target;
                long pace = Math.max(1, Math.round(cycle));
                Result calibration = wrk(server, operation, 3, Duration.ofSeconds(2), HALF_LOAD_CONNECTIONS, pace);
                if (calibration.requestsPerSecond() > 0) {
                    double answer = Math.max(0, HALF_LOAD_CONNECTIONS * 1000 / calibration.requestsPerSecond() - pace);
                    pace = Math.max(1, Math.round(cycle - answer));
                }
                Result paced = wrk(server, operation, 4, plan.half(), HALF_LOAD_CONNECTIONS, pace);
                half.put(operation, paced);
                log.accept(store + ": at half load (target " + Math.round(target) + "/s): " + paced);
            }
        }
        Result noopAfter = wrk(server, Operations.NOOP, 0, plan.measure(), CONNECTIONS, 0);
        log.accept(store + ": " + noopAfter);
        server.requireAlive();
        return new Outcome(store, maximum, half, noopBefore, noopAfter);
    }

    private static final Pattern BENCH = Pattern.compile("BENCH requests=(\\d+) duration_us=(\\d+) p50_us=(\\d+) "
            + "p99_us=(\\d+) max_us=(\\d+) ok=(\\d+) bad=(\\d+) reused=(\\d+) socket_errors=(\\d+) bad_status=(\\d+)");

    /** One wrk run; {@code phase} picks the data file of a consuming operation (an index of PHASES). */
    private Result wrk(ServerProcess server, String operation, int phase, Duration duration, int connections, long paceMillis) {
        List<Path> files = data.getOrDefault(operation, List.of());
        Path file = files.isEmpty() ? null : files.get(Math.min(phase, files.size() - 1));
        String kind = KINDS.get(operation);
        String run = "r" + runs.incrementAndGet() + "x" + (System.currentTimeMillis() % 100000);
        try {
            Path script = work.resolve("lua").resolve(run + "-" + kind + ".lua");
            Files.createDirectories(script.getParent());
            String constants = "KIND = \"" + kind + "\"\nDATA = \"" + (file == null ? "" : file.toAbsolutePath())
                    + "\"\nTHREADS = " + THREADS + "\nPACE_MS = " + paceMillis + "\nRUN = \"" + run + "\"\nKEY = \"Bearer "
                    + Fixtures.API_KEY + "\"\n";
            Files.writeString(script, constants + luaScript());
            double cpuBefore = server.cpuSeconds();
            long writtenBefore = server.bytesWritten();
            Process wrk = new ProcessBuilder("wrk", "-t" + THREADS, "-c" + connections, "-d" + duration.toSeconds() + "s",
                    "--timeout", "10s", "-s", script.toString(), server.base())
                    .redirectErrorStream(true).start();
            String output = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!wrk.waitFor(duration.toSeconds() + 60, TimeUnit.SECONDS) || wrk.exitValue() != 0) {
                throw new IllegalStateException("wrk failed: " + output);
            }
            Matcher line = BENCH.matcher(output);
            if (!line.find()) {
                throw new IllegalStateException("wrk printed no result: " + output);
            }
            double cpu = server.cpuSeconds() - cpuBefore;
            long written = server.bytesWritten() - writtenBefore;
            long requests = Long.parseLong(line.group(1));
            double seconds = Long.parseLong(line.group(2)) / 1e6;
            return new Result(operation, requests / seconds, Long.parseLong(line.group(3)) / 1000.0,
                    Long.parseLong(line.group(4)) / 1000.0, requests, Long.parseLong(line.group(6)),
                    Long.parseLong(line.group(7)), Long.parseLong(line.group(8)), Long.parseLong(line.group(9)),
                    Integer.parseInt(line.group(10)), cpu * 1000 / Math.max(1, requests),
                    (double) written / Math.max(1, requests));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run wrk (Debian: apt-get install wrk)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String luaScript() {
        try (InputStream in = LoadRun.class.getResourceAsStream("/bench/load.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.verificationservice.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The whole benchmark suite, as {@code bench/run} starts it from the repository root: JMH (core, each store's
 * access patterns, a whole verification at 1,000 and 1,000,000 stored codes and with synchronous FULL and
 * NORMAL, interleaved), the DynamoDB cost probe, the HTTP load run with wrk on both stores, start-up time and memory,
 * the webhook relay's drain rate and a healthy endpoint's latency beside hanging ones ({@code webhooks}), and Spring
 * Security's one-time tokens on this store against its {@code JdbcOneTimeTokenService} ({@code ott}).
 * Prints one table per API operation, then the targets and the supporting figures, and writes the same text to
 * {@code benchmarks/target/bench-results.md}. {@code --quick} runs everything briefly (for working on the suite;
 * its figures are not meant to be quoted).
 */
public final class Suite {

    private final boolean quick;
    private final Path work = Path.of("benchmarks/target/bench-run").toAbsolutePath();
    private final StringBuilder progress = new StringBuilder();
    private final Consumer<String> log = line -> {
        String stamped = "[" + DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC).format(Instant.now()) + "] " + line;
        System.err.println(stamped);
        progress.append(stamped).append('\n');
    };

    private Suite(boolean quick) {
        this.quick = quick;
    }

    public static void main(String[] args) throws Exception {
        Set<String> flags = Set.of(args);
        new Suite(flags.contains("--quick")).run(flags);
    }

    private void run(Set<String> flags) throws Exception {
        Files.createDirectories(work);
        long started = System.nanoTime();
        String loadBefore = loadAverage();
        boolean all = flags.stream().noneMatch(flag -> Set.of("jmh", "verify", "probe", "load", "events", "webhooks",
                "startup", "ott", "send", "capacity", "pumping")
                .contains(flag));

        Map<String, Double> jmh = new LinkedHashMap<>();
        if (all || flags.contains("jmh")) {
            log.accept("JMH (output in " + work.resolve("jmh.txt") + ")");
            jmh = jmh();
        }
        List<InterleavedVerify.Result> verify = List.of();
        if (all || flags.contains("verify")) {
            log.accept("Embedded verification at 1,000 and 1,000,000 stored codes, FULL and NORMAL (interleaved)");
            verify = InterleavedVerify.run(quick ? 100_000 : 1_000_000, quick ? 3 : 15, quick ? 20 : 50, log);
            verify.forEach(result -> log.accept(result.toString()));
        }
        Map<String, CostProbe.Cost> costs = Map.of();
        if (all || flags.contains("probe")) {
            log.accept("DynamoDB cost probe");
            costs = CostProbe.run();
            costs.values().forEach(cost -> log.accept(cost.toString()));
        }
        LoadRun.Outcome embedded = null;
        LoadRun.Outcome dynamodb = null;
        if (all || flags.contains("load")) {
            List<String> server = List.of("./run");
            LoadRun.Plan embeddedPlan = quick
                    ? new LoadRun.Plan(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2), 3000, 100, 20, true)
                    : new LoadRun.Plan(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(6), Duration.ofSeconds(5), 48000, 500, 50, true);
            LoadRun.Plan dynamoPlan = quick
                    ? new LoadRun.Plan(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2), 600, 50, 10, false)
                    : new LoadRun.Plan(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(6), Duration.ofSeconds(5), 2500, 200, 20, false);
            log.accept("HTTP load, embedded store");
            embedded = LoadRun.embedded(work, server, embeddedPlan, log);
            log.accept("HTTP load, DynamoDB store on dynalite");
            dynamodb = LoadRun.dynamodb(work, server, dynamoPlan, log);
        }
        if (flags.contains("send")) {
            // Only the embedded send and the no-op floor around it, 60 s of warm-up and 20 s measured: both make their
            // own data; 6 s on two shared cores moved the ratio by a third from run to run, and after 30 s of sends
            // the JIT's C2 thread still took 0.4 of the two cores (per-thread CPU from /proc), after 45 s 0.02.
            LoadRun.Plan plan = quick
                    ? new LoadRun.Plan(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2), 100, 10, 5, true)
                    : new LoadRun.Plan(Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofSeconds(5), 100, 10, 5, true);
            log.accept("HTTP load, embedded store, send only");
            LoadRun.Outcome send = LoadRun.embeddedSend(work, List.of("./run"), plan, log);
            LoadRun.Result result = send.maximum().get(Operations.SEND);
            String line = String.format(Locale.ROOT, "embedded send: %.0f requests/s, %.2f× no-op (%.0f and %.0f); "
                            + "server CPU %.2f ms and %.1f KB written a send; p99 %.1f ms at half load; load average %s",
                    result.requestsPerSecond(), result.requestsPerSecond() / send.noopRate(),
                    send.noopBefore().requestsPerSecond(), send.noopAfter().requestsPerSecond(),
                    result.serverCpuMillisPerRequest(), result.serverBytesWrittenPerRequest() / 1024,
                    send.halfLoad().get(Operations.SEND).p99Millis(), loadAverage());
            System.out.println(line);
            Files.writeString(work.resolve("send-result.txt"), line + "\n", StandardCharsets.UTF_8);
            if (flags.size() == 1) {
                return;
            }
        }
        if (flags.contains("capacity")) {
            log.accept("DynamoDB capacity model: the rate at which the first partition key reaches its limit");
            String table = CapacityRun.table(CapacityRun.run());
            System.out.println(table);
            Files.writeString(work.resolve("capacity-result.md"), table, StandardCharsets.UTF_8);
            if (flags.size() == 1) {
                return;
            }
        }
        if (flags.contains("pumping")) {
            log.accept("SMS pumping simulation: the shipped signal defaults, five seeds");
            String table = PumpingRun.table();
            System.out.println(table);
            Files.writeString(work.resolve("pumping-result.md"), table, StandardCharsets.UTF_8);
            if (flags.size() == 1) {
                return;
            }
        }
        LoadRun.Outcome withWebhook = null;
        if (all || flags.contains("events")) {
            LoadRun.Plan plan = quick
                    ? new LoadRun.Plan(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2), 3000, 100, 20, false)
                    : new LoadRun.Plan(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(6), Duration.ofSeconds(5), 48000, 500, 50, false);
            if (embedded == null) {
                log.accept("HTTP load, embedded store, no webhook endpoint (send and verify only)");
                embedded = LoadRun.embedded(work, List.of("./run"), plan, log);
            }
            log.accept("HTTP load, embedded store, one webhook endpoint (send and verify)");
            withWebhook = LoadRun.embeddedWithWebhook(work, List.of("./run"), plan, log);
        }
        WebhookRun.Results webhooks = null;
        if (all || flags.contains("webhooks")) {
            log.accept("Webhook relay on the embedded store: drain rate, and a healthy endpoint beside hanging ones");
            webhooks = WebhookRun.run(quick, log);
        }
        List<StartupRun.Result> startup = List.of();
        if (all || flags.contains("startup")) {
            log.accept("Start-up and memory");
            startup = StartupRun.run(work, quick ? 1 : 3, log);
        }
        List<OttComparison.Result> ott = List.of();
        if (all || flags.contains("ott")) {
            log.accept("Spring Security one-time tokens: this store against JdbcOneTimeTokenService (interleaved)");
            ott = OttComparison.run(List.of(1, 8), quick ? 2 : 5, quick ? 1000 : 5000, log);
        }
        String report = new Report(jmh, verify, costs, embedded, dynamodb, withWebhook, webhooks, startup, loadBefore, loadAverage(),
                Duration.ofNanos(System.nanoTime() - started), quick).render()
                + (ott.isEmpty() ? "" : "\n" + OttComparison.table(ott));
        System.out.println();
        System.out.println(report);
        Files.writeString(Path.of("benchmarks/target/bench-results.md"), report, StandardCharsets.UTF_8);
        Files.writeString(work.resolve("progress.log"), progress, StandardCharsets.UTF_8);
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException e) {
            return "?";
        }
    }

    /** Every JMH run of the suite; the scores by "Benchmark.method [params]". */
    private Map<String, Double> jmh() throws RunnerException, IOException {
        Map<String, Double> scores = new LinkedHashMap<>();
        Path output = work.resolve("jmh.txt");
        Files.deleteIfExists(output);
        record Job(String include, Map<String, String[]> params) {
        }
        List<Job> jobs = new ArrayList<>();
        jobs.add(new Job(CoreBenchmark.class.getSimpleName(), Map.of()));
        jobs.add(new Job(StorePatternsBenchmark.class.getSimpleName(), Map.of()));
        jobs.add(new Job(VerifyBenchmark.class.getSimpleName(), Map.of("store", new String[] {"embedded", "dynamodb"},
                "storedCodes", new String[] {"1000"}, "synchronous", new String[] {"FULL"})));
        for (Job job : jobs) {
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include("\\." + job.include() + "\\.")
                    .jvmArgsAppend("-Dbench.dynalite.cli=" + System.getProperty("bench.dynalite.cli",
                            "benchmarks/target/dynalite/node_modules/dynalite/cli.js"), "-Xmx2g")
                    .output(output.toString())
                    .shouldFailOnError(true);
            job.params().forEach(options::param);
            if (quick) {
                options.warmupIterations(1).measurementIterations(2).warmupTime(TimeValue.milliseconds(300))
                        .measurementTime(TimeValue.milliseconds(500));
            }
            // JMH appends to the output file per run only if it is told to; keep every run's text.
            Path part = work.resolve("jmh-" + jobs.indexOf(job) + ".txt");
            options.output(part.toString());
            Collection<RunResult> results = new Runner(options.build()).run();
            Files.writeString(output, Files.readString(part), StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            for (RunResult result : results) {
                String name = result.getParams().getBenchmark().replaceFirst(".*\\.bench\\.", "");
                List<String> params = new ArrayList<>();
                for (String key : result.getParams().getParamsKeys()) {
                    params.add(key + "=" + result.getParams().getParam(key));
                }
                String key = name + (params.isEmpty() ? "" : " " + params);
                scores.put(key, result.getPrimaryResult().getScore());
                log.accept(String.format(Locale.ROOT, "%s: %.3f %s", key, result.getPrimaryResult().getScore(),
                        result.getPrimaryResult().getScoreUnit()));
            }
        }
        return scores;
    }
}

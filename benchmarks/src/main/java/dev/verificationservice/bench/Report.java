package dev.verificationservice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The suite's printed result: one table per API operation, the targets, and the figures behind them. */
final class Report {

    private final Map<String, Double> jmh;
    private final List<InterleavedVerify.Result> verify;
    private final Map<String, CostProbe.Cost> costs;
    private final LoadRun.Outcome embedded;
    private final LoadRun.Outcome dynamodb;
    /** Send and verify on the embedded store with one webhook endpoint registered; null when not run. */
    private final LoadRun.Outcome withWebhook;
    /** The relay's drain rate and a healthy endpoint beside hanging ones; null when not run. */
    private final WebhookRun.Results webhooks;
    private final List<StartupRun.Result> startup;
    private final String loadBefore;
    private final String loadAfter;
    private final Duration took;
    private final boolean quick;
    private final StringBuilder out = new StringBuilder();

    Report(Map<String, Double> jmh, List<InterleavedVerify.Result> verify, Map<String, CostProbe.Cost> costs, LoadRun.Outcome embedded,
           LoadRun.Outcome dynamodb, LoadRun.Outcome withWebhook,
           WebhookRun.Results webhooks, List<StartupRun.Result> startup, String loadBefore, String loadAfter, Duration took,
           boolean quick) {
        this.jmh = jmh;
        this.verify = verify;
        this.costs = costs;
        this.embedded = embedded;
        this.dynamodb = dynamodb;
        this.withWebhook = withWebhook;
        this.webhooks = webhooks;
        this.startup = startup;
        this.loadBefore = loadBefore;
        this.loadAfter = loadAfter;
        this.took = took;
        this.quick = quick;
    }

    String render() {
        line("Benchmark suite (bench/run)" + (quick ? " --quick: SHORT RUNS, NOT FOR QUOTING" : "") + ", "
                + LocalDate.now(ZoneOffset.UTC) + ", " + took.toMinutes() + " min " + took.toSecondsPart() + " s");
        line("Machine: " + machine() + "; load average " + loadBefore + " at the start, " + loadAfter
                + " at the end (other builds share the cores: compare ratios within one run, not absolute figures)");
        line("Server: " + javaVersion("java") + ", started as ./run starts it; load: wrk " + LoadRun.THREADS + " threads, "
                + LoadRun.CONNECTIONS + " connections, on the same 2 cores");
        line("");
        operationsTable();
        line("");
        targets();
        line("");
        supporting();
        return out.toString();
    }

    private void operationsTable() {
        line("| Operation | embedded req/s | × no-op | p50 ms | p99 ms | p99 at ½ load ms | dynalite req/s | × no-op | p50 ms "
                + "| p99 ms | DynamoDB steps (requests) | read units | write units | $ per 1M calls |");
        line("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        List<String> rows = new ArrayList<>();
        rows.add(Operations.NOOP);
        rows.addAll(Operations.API);
        for (String operation : rows) {
            StringBuilder row = new StringBuilder("| " + operation + " | ");
            row.append(loadCells(embedded, operation, true)).append(loadCells(dynamodb, operation, false));
            CostProbe.Cost cost = costs.get(operation);
            if (cost == null) {
                row.append("– | – | – | – |");
            } else {
                row.append(fmt(cost.steps(), 0)).append(" (").append(fmt(cost.requests(), 0)).append(") | ")
                        .append(fmt(cost.readUnits(), 1)).append(" | ").append(fmt(cost.writeUnits(), 1)).append(" | ")
                        .append(String.format(Locale.ROOT, "%.2f", cost.usdPerMillion())).append(" |");
            }
            line(row.toString());
        }
        line("");
        if (embedded != null) {
            line("No-op floor: GET /actuator/health/liveness of the same server, measured before and after the operations "
                    + "(embedded " + fmt(embedded.noopBefore().requestsPerSecond(), 0) + " and "
                    + fmt(embedded.noopAfter().requestsPerSecond(), 0) + " req/s"
                    + (dynamodb == null ? "" : "; dynalite server " + fmt(dynamodb.noopBefore().requestsPerSecond(), 0)
                    + " and " + fmt(dynamodb.noopAfter().requestsPerSecond(), 0) + " req/s")
                    + "); × no-op divides by the higher of the two (the stricter floor).");
            List<String> wrong = new ArrayList<>();
            for (LoadRun.Outcome outcome : java.util.Arrays.asList(embedded, dynamodb, withWebhook)) {
                if (outcome == null) {
                    continue;
                }
                List<LoadRun.Result> all = new ArrayList<>(outcome.maximum().values());
                all.addAll(outcome.halfLoad().values());
                for (LoadRun.Result result : all) {
                    if (result.bad() > 0 || result.socketErrors() > 0) {
                        wrong.add(outcome.store() + " " + result.operation() + ": " + result.bad() + " of "
                                + result.requests() + " not the expected answer (last: HTTP " + result.badStatus() + "), "
                                + result.socketErrors() + " socket errors");
                    }
                }
            }
            line(wrong.isEmpty() ? "Every answer of every load run was the expected one (202/201/200, and valid:true for "
                    + "check and verify)." : "Unexpected answers: " + String.join("; ", wrong) + ".");
        }
        if (withWebhook != null && embedded != null) {
            List<String> compared = new ArrayList<>();
            for (String operation : withWebhook.maximum().keySet()) {
                LoadRun.Result with = withWebhook.maximum().get(operation);
                LoadRun.Result without = embedded.maximum().get(operation);
                compared.add(String.format(Locale.ROOT, "%s %.0f req/s (p99 %.1f ms) vs %.0f (p99 %.1f ms) without, %.2f×",
                        operation, with.requestsPerSecond(), with.p99Millis(), without.requestsPerSecond(),
                        without.p99Millis(), with.requestsPerSecond() / without.requestsPerSecond()));
            }
            line("With one webhook endpoint (embedded store, code.sent and code.verified, a receiver answering 204 on the same "
                    + "machine, so the relay's threads share the cores): " + String.join("; ", compared) + ".");
        }
        if (!costs.isEmpty()) {
            line("DynamoDB columns: one call of each operation at a time through the core (as its controller calls it) on "
                    + "dynalite behind the recording proxy, " + CostProbe.RUNS + " calls: steps (the median call) count "
                    + "requests in flight together once, requests and units are the mean; units are what DynamoDB bills (GSI writes, transactions ×2, 1 KB writes, 4 KB "
                    + "reads, consistent or not) computed from the items; dollars: " + Billing.PRICE_LIST + ".");
            line("");
            line("Requests per step (→ one after another, ‖ in parallel):");
            line("");
            costs.values().forEach(cost -> line("- " + cost.operation() + ": " + cost.shape() + " (steps in each run: "
                    + cost.stepsPerRun() + ")"));
        }
    }

    private String loadCells(LoadRun.Outcome outcome, String operation, boolean withHalf) {
        if (outcome == null) {
            return withHalf ? "– | – | – | – | – | " : "– | – | – | – | ";
        }
        LoadRun.Result result = operation.equals(Operations.NOOP)
                ? (outcome.noopBefore().requestsPerSecond() >= outcome.noopAfter().requestsPerSecond()
                        ? outcome.noopBefore() : outcome.noopAfter())
                : outcome.maximum().get(operation);
        StringBuilder cells = new StringBuilder();
        cells.append(fmt(result.requestsPerSecond(), 0)).append(" | ")
                .append(String.format(Locale.ROOT, "%.2f", result.requestsPerSecond() / outcome.noopRate())).append(" | ")
                .append(fmt(result.p50Millis(), 1)).append(" | ").append(fmt(result.p99Millis(), 1)).append(" | ");
        if (withHalf) {
            LoadRun.Result half = outcome.halfLoad().get(operation);
            cells.append(half == null ? "–" : fmt(half.p99Millis(), 1) + " (" + fmt(half.requestsPerSecond(), 0) + "/s)")
                    .append(" | ");
        }
        return cells.toString();
    }

    private void targets() {
        line("| Target | Measured | Met |");
        line("|---|---|---|");
        cost(Operations.VERIFY_LINK).ifPresent(c -> target("verify LINK: 1 sequential DynamoDB round trip",
                fmt(c.steps(), 0) + " (" + c.shape() + ")", c.steps() <= 1));
        cost(Operations.VERIFY_NUMERIC).ifPresent(c -> target("verify NUMERIC: ≤ 2 round trips",
                fmt(c.steps(), 0) + " (" + c.shape() + ")", c.steps() <= 2));
        cost(Operations.SEND).ifPresent(c -> target("send: ≤ 4 round trips", fmt(c.steps(), 0) + " (" + c.shape() + ")",
                c.steps() <= 4));
        cost(Operations.RATE_LIMITS).ifPresent(c -> target("rate-limit state: 1 round trip",
                fmt(c.steps(), 0) + " (" + fmt(c.requests(), 0) + " queries in parallel)", c.steps() <= 1));
        if (embedded != null) {
            for (String verify : List.of(Operations.VERIFY_NUMERIC, Operations.VERIFY_LINK)) {
                double ratio = embedded.maximum().get(verify).requestsPerSecond() / embedded.noopRate();
                target("embedded " + verify.replace(" (POST /v1/codes/verify)", "") + ": ≥ 0.5× no-op throughput",
                        String.format(Locale.ROOT, "%.2f×", ratio), ratio >= 0.5);
            }
            double send = embedded.maximum().get(Operations.SEND).requestsPerSecond() / embedded.noopRate();
            target("embedded send: ≥ 0.3× no-op throughput", String.format(Locale.ROOT, "%.2f×", send), send >= 0.3);
            List<String> over = new ArrayList<>();
            double worst = 0;
            for (LoadRun.Result half : embedded.halfLoad().values()) {
                worst = Math.max(worst, half.p99Millis());
                if (half.p99Millis() > 10) {
                    over.add(half.operation().replaceAll(" \\(.*", "") + " " + fmt(half.p99Millis(), 1));
                }
            }
            target("embedded: p99 ≤ 10 ms at half of the maximum load (each operation)",
                    "worst " + fmt(worst, 1) + " ms" + (over.isEmpty() ? "" : "; over: " + String.join(", ", over)),
                    over.isEmpty());
        }
        Optional<InterleavedVerify.Result> small = interleaved(1000, "FULL");
        Optional<InterleavedVerify.Result> large = verify.stream()
                .filter(r -> r.storedCodes() > 1000 && r.synchronous().equals("FULL")).findFirst();
        Optional<InterleavedVerify.Result> smallNormal = interleaved(1000, "NORMAL");
        Optional<InterleavedVerify.Result> largeNormal = verify.stream()
                .filter(r -> r.storedCodes() > 1000 && r.synchronous().equals("NORMAL")).findFirst();
        if (small.isPresent() && large.isPresent()) {
            double ratio = large.get().medianMillis() / small.get().medianMillis();
            String withoutSync = smallNormal.isPresent() && largeNormal.isPresent()
                    ? String.format(Locale.ROOT, " (without the sync of every commit: %.2f ms vs %.2f ms, %.2f×)",
                    largeNormal.get().medianMillis(), smallNormal.get().medianMillis(),
                    largeNormal.get().medianMillis() / smallNormal.get().medianMillis()) : "";
            target(String.format("embedded verify at %,d stored codes: ≤ 1.2× the latency at 1,000", large.get().storedCodes()),
                    String.format(Locale.ROOT, "median %.2f ms vs %.2f ms: %.2f×", large.get().medianMillis(),
                            small.get().medianMillis(), ratio) + withoutSync, ratio <= 1.2);
        }
        if (webhooks != null) {
            webhooks.drains().stream().filter(d -> d.perEndpointConcurrency()
                    == dev.verificationservice.events.WebhookSettings.defaults().perEndpointConcurrency()).findFirst()
                    .ifPresent(d -> target(String.format(Locale.ROOT, "webhooks: ≥ %.0f events/s to one fast endpoint "
                            + "(embedded, shipped settings, %d per endpoint)", WebhookRun.DRAIN_GOAL,
                            d.perEndpointConcurrency()), String.format(Locale.ROOT, "%.0f events/s (%,d in %.2f s)",
                            d.eventsPerSecond(), d.events(), d.seconds()),
                            d.events() == d.written() && d.eventsPerSecond() >= WebhookRun.DRAIN_GOAL));
            WebhookRun.Beside b = webhooks.beside();
            target(String.format(Locale.ROOT, "webhooks: healthy endpoint beside %d hanging ones, p99 < %.0f ms",
                    b.hanging(), WebhookRun.BESIDE_P99_GOAL_MILLIS), String.format(Locale.ROOT,
                    "p99 %.1f ms (p50 %.1f, max %.1f; %d of %d arrived)", b.p99Millis(), b.p50Millis(), b.maxMillis(),
                    b.arrived(), b.written()), b.arrived() == b.written() && b.p99Millis() < WebhookRun.BESIDE_P99_GOAL_MILLIS);
        }
        startup.stream().filter(result -> result.variant().name().startsWith("./run")).findFirst().ifPresent(result -> {
            double ready = StartupRun.Result.median(result.readySeconds());
            double rss = StartupRun.Result.median(result.rssMegabytes());
            target("ready ≤ 3 s after start (./run, the README's way)", String.format(Locale.ROOT,
                    "%.2f s median of %d (%.2f s CPU)", ready, result.readySeconds().size(),
                    StartupRun.Result.median(result.cpuSeconds())), ready <= 3);
            target("idle RSS ≤ 200 MB (./run)", String.format(Locale.ROOT, "%.0f MB", rss), rss <= 200);
        });
    }

    private void supporting() {
        if (!verify.isEmpty()) {
            line("| Embedded verification, interleaved (" + verify.get(0).samples() + " each) | median | p90 |");
            line("|---|--:|--:|");
            verify.forEach(r -> line(String.format(Locale.ROOT, "| %s | %.2f ms | %.2f ms |", r.variant(), r.medianMillis(),
                    r.p90Millis())));
            line("");
        }
        Optional<InterleavedVerify.Result> full = interleaved(1000, "FULL");
        Optional<InterleavedVerify.Result> normal = interleaved(1000, "NORMAL");
        if (full.isPresent() && normal.isPresent()) {
            line(String.format(Locale.ROOT, "synchronous=FULL vs NORMAL (embedded, one NUMERIC verification at a time): "
                    + "median %.2f ms vs %.2f ms, about %.0f vs %.0f verifications/s on one thread: FULL costs %.2f×.",
                    full.get().medianMillis(), normal.get().medianMillis(), 1000 / full.get().medianMillis(),
                    1000 / normal.get().medianMillis(), full.get().medianMillis() / normal.get().medianMillis()));
        }
        cost(Operations.VERIFY_NUMERIC).ifPresent(c -> line(String.format(Locale.ROOT, "Consume as one transaction "
                + "(code + CODE_VERIFIED + give-back) vs a plain conditional UpdateItem + PutItem (+ the give-back "
                + "UpdateItem): NUMERIC %.0f vs %.0f write units", c.consumeWriteUnits(), c.consumeWriteUnitsIfPlain())
                + cost(Operations.VERIFY_LINK).map(l -> String.format(Locale.ROOT, "; LINK %.0f vs %.0f", l.consumeWriteUnits(),
                l.consumeWriteUnitsIfPlain())).orElse("") + " (GSI1 write of the code included in both)."));
        cost(Operations.SEND).ifPresent(send -> cost(Operations.VERIFY_NUMERIC).ifPresent(verify -> line(String.format(
                Locale.ROOT, "Cost per million verifications (one code sent and verified, NUMERIC): $%.2f (send $%.2f + "
                        + "verify $%.2f) at %s.", send.usdPerMillion() + verify.usdPerMillion(), send.usdPerMillion(),
                verify.usdPerMillion(), Billing.PRICE_LIST))));
        cost(Operations.EVENT_RELAY).ifPresent(relay -> cost(Operations.AUDIT_ENTRY).ifPresent(entry -> line(
                String.format(Locale.ROOT, "Events out (DynamoDB): each audit entry is its own outbox record, so an event "
                        + "adds the OUTBOX index entry to the write that carries the entry (an audit entry written alone: "
                        + "%.1f write units, index entry included), then the relay's work for each endpoint: %.1f write "
                        + "and %.1f read units in %.0f steps (%s).", entry.writeUnits(), relay.writeUnits(),
                        relay.readUnits(), relay.steps(), relay.shape()))));
        if (!costs.isEmpty()) {
            double reported = costs.values().stream().mapToDouble(CostProbe.Cost::reportedUnits).sum();
            double billed = costs.values().stream().mapToDouble(c -> c.readUnits() + c.writeUnits()).sum();
            line(String.format(Locale.ROOT, "dynalite's own ConsumedCapacity for the same calls adds up to %.1f units where "
                    + "the billing rules give %.1f (it leaves out index writes and failed conditions).", reported, billed));
        }
        line("");
        if (webhooks != null) {
            webhookTables();
        }
        if (!startup.isEmpty()) {
            line("| Start | ready (median) | each run | CPU to ready | idle RSS (median) |");
            line("|---|--:|---|--:|--:|");
            for (StartupRun.Result result : startup) {
                line(String.format(Locale.ROOT, "| %s | %.2f s | %s | %.2f s | %.0f MB |", result.variant().name(),
                        StartupRun.Result.median(result.readySeconds()), result.readySeconds().stream()
                                .map(value -> String.format(Locale.ROOT, "%.2f", value)).toList(),
                        StartupRun.Result.median(result.cpuSeconds()), StartupRun.Result.median(result.rssMegabytes())));
            }
            line("");
        }
        if (!jmh.isEmpty()) {
            line("| JMH benchmark | score |");
            line("|---|--:|");
            jmh.forEach((name, score) -> {
                String unit = name.startsWith("VerifyBenchmark") ? String.format(Locale.ROOT, "%.3f ms per verification",
                        score / VerifyBenchmark.BATCH) : String.format(Locale.ROOT, "%.1f µs/op", score);
                line("| " + name + " | " + unit + " |");
            });
        }
    }

    private void webhookTables() {
        List<WebhookRun.Drain> drains = webhooks.drains();
        line("| Webhook drain (embedded, in-process, one endpoint answering 204 at once) | per endpoint | events/s "
                + "| events | seconds | first arrival s | poller busy in store calls | writer transactions per event "
                + "| commits per event | load average |");
        line("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|");
        for (WebhookRun.Drain d : drains) {
            line(String.format(Locale.ROOT, "| backlog written first, then the relay started | %d | %.0f | %,d of %,d "
                            + "| %.2f | %.2f | %.0f %% | %.2f | %.2f | %s |", d.perEndpointConcurrency(),
                    d.eventsPerSecond(), d.events(), d.written(), d.seconds(), d.firstSeconds(),
                    100 * d.pollerMillis() / (d.seconds() * 1000), (double) d.transactions() / d.events(),
                    (double) d.commits() / d.events(), d.load()));
        }
        line("");
        java.util.Set<String> calls = new java.util.TreeSet<>();
        drains.forEach(d -> calls.addAll(d.storeCalls().keySet()));
        StringBuilder head = new StringBuilder("| Relay store call (thread): calls, ms in all |");
        StringBuilder rule = new StringBuilder("|---|");
        for (WebhookRun.Drain d : drains) {
            head.append(" ").append(d.perEndpointConcurrency()).append(" per endpoint |");
            rule.append("--:|");
        }
        line(head.toString());
        line(rule.toString());
        for (String call : calls) {
            StringBuilder row = new StringBuilder("| " + call + " |");
            for (WebhookRun.Drain d : drains) {
                double[] figures = d.storeCalls().get(call);
                row.append(figures == null ? " – |" : String.format(Locale.ROOT, " %,.0f, %,.0f ms |", figures[0],
                        figures[1]));
            }
            line(row.toString());
        }
        StringBuilder wall = new StringBuilder("| wall time of the drain |");
        drains.forEach(d -> wall.append(String.format(Locale.ROOT, " %,.0f ms |", d.seconds() * 1000)));
        line(wall.toString());
        line("");
        line("| Healthy endpoint (embedded, in-process, shipped settings) | events written | arrived | p50 ms | p99 ms "
                + "| max ms | requests held at the hanging receivers | load average |");
        line("|---|--:|--:|--:|--:|--:|--:|---|");
        for (WebhookRun.Beside b : List.of(webhooks.alone(), webhooks.beside())) {
            line(String.format(Locale.ROOT, "| %s, %.0f events/s for %.0f s | %d | %d | %.1f | %.1f | %.1f | %d | %s |",
                    b.hanging() == 0 ? "alone" : "beside " + b.hanging() + " that never answer", b.ratePerSecond(),
                    b.seconds(), b.written(), b.arrived(), b.p50Millis(), b.p99Millis(), b.maxMillis(),
                    b.heldAtHanging(), b.load()));
        }
        line("");
        line("Latency: from just before an event's audit write to its first arrival at the receiver. Store calls: the "
                + "relay's calls to its WebhookRepository, wall time by the runner's thread that made them.");
        line("");
    }

    private Optional<InterleavedVerify.Result> interleaved(int stored, String synchronous) {
        return verify.stream().filter(r -> r.storedCodes() == stored && r.synchronous().equals(synchronous)).findFirst();
    }

    private Optional<CostProbe.Cost> cost(String operation) {
        return Optional.ofNullable(costs.get(operation));
    }

    private void target(String target, String measured, boolean met) {
        line("| " + target + " | " + measured + " | " + (met ? "yes" : "**no**") + " |");
    }

    private static String fmt(double value, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    private void line(String text) {
        out.append(text).append('\n');
    }

    static String machine() {
        String model = "?";
        String memory = "?";
        try {
            model = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.replaceFirst(".*:\\s*", "")).orElse("?");
            memory = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .findFirst().map(l -> Math.round(Long.parseLong(l.replaceAll("[^0-9]", "")) / 1048576.0) + " GB")
                    .orElse("?");
        } catch (IOException e) {
            // leave ?
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + model + "), " + memory + " RAM, Linux";
    }

    static String javaVersion(String java) {
        try {
            Process process = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes()).lines().skip(1).findFirst().orElse("?");
            process.waitFor(10, TimeUnit.SECONDS);
            return text.trim();
        } catch (IOException | InterruptedException e) {
            return "?";
        }
    }
}

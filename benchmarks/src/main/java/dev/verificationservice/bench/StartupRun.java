package dev.verificationservice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Time to readiness and idle memory of the server as started three ways: the plain jar on the default java,
 * {@code ./run} on it (the README's way), and {@code ./run} on Temurin 25 when it is installed. Each way is
 * started once unmeasured (it prepares its archive, and fills the page cache), then {@code runs} times on a
 * fresh data directory: readiness polled from the moment the process starts, CPU time used until then, and the
 * resident set {@value #IDLE_SECONDS} s after readiness with no traffic.
 */
final class StartupRun {

    static final int IDLE_SECONDS = 5;
    static final String TEMURIN_25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";

    record Variant(String name, List<String> command, Map<String, String> environment) {
    }

    record Result(Variant variant, List<Double> readySeconds, List<Double> cpuSeconds, List<Double> rssMegabytes) {
        static double median(List<Double> values) {
            List<Double> sorted = new ArrayList<>(values);
            sorted.sort(Double::compare);
            int middle = sorted.size() / 2;
            return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
        }
    }

    static List<Variant> variants() {
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("java -jar server/target/verification-server.jar (default java, JVM defaults)",
                List.of("java", "-jar", "server/target/verification-server.jar"), Map.of()));
        variants.add(new Variant("./run (default java: CDS archive, serial GC, 32-256 MB heap)", List.of("./run"),
                Map.of("RUN_SKIP_BUILD", "1")));
        if (Files.isExecutable(Path.of(TEMURIN_25))) {
            variants.add(new Variant("JAVA=Temurin 25 ./run (AOT cache, serial GC, 32-256 MB heap)", List.of("./run"),
                    Map.of("RUN_SKIP_BUILD", "1", "JAVA", TEMURIN_25)));
        }
        return variants;
    }

    static List<Result> run(Path work, int runs, Consumer<String> log) {
        List<Result> results = new ArrayList<>();
        int index = 0;
        for (Variant variant : variants()) {
            index++;
            List<Double> ready = new ArrayList<>();
            List<Double> cpu = new ArrayList<>();
            List<Double> rss = new ArrayList<>();
            for (int run = 0; run <= runs; run++) {
                Path dataDir = work.resolve("startup").resolve(index + "-" + run);
                Map<String, String> environment = new HashMap<>(variant.environment());
                environment.put("VERIFICATION_DATA_DIR", dataDir.toString());
                try (ServerProcess server = ServerProcess.start(variant.command(), environment, ServerProcess.freePort(),
                        work.resolve("startup").resolve(index + "-" + run + ".log"))) {
                    Duration toReady = server.awaitReady(Duration.ofSeconds(180));
                    if (run == 0) {
                        continue; // prepares the archive of ./run, fills the page cache
                    }
                    ServerProcess.sleep(IDLE_SECONDS * 1000L);
                    ready.add(toReady.toMillis() / 1000.0);
                    cpu.add(server.cpuSecondsAtReady());
                    rss.add(server.rssMegabytes());
                    log.accept(String.format("%s: ready in %.2f s (%.2f s CPU), idle RSS %.0f MB", variant.name(),
                            toReady.toMillis() / 1000.0, server.cpuSecondsAtReady(), server.rssMegabytes()));
                }
            }
            results.add(new Result(variant, ready, cpu, rss));
        }
        return results;
    }
}

package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.table.TableKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Verification latency on the embedded store at 1,000 and at 1,000,000 stored codes, and with synchronous FULL
 * and NORMAL, measured interleaved: round after round, each variant verifies a batch of fresh codes (written
 * before the batch, untimed, and deleted after it), in a rotating order. Other builds share this machine's cores
 * and disk and their load drifts over minutes; measuring the variants one after another (as separate JMH forks
 * do) would compare the drift, interleaving compares the variants. Each verification is the whole
 * {@code CodeService.verify} of a NUMERIC code, timed on its own; medians are reported.
 */
final class InterleavedVerify {

    record Result(String variant, int storedCodes, String synchronous, double medianMillis, double p90Millis,
                  int samples) {
    }

    private record Variant(String name, int storedCodes, String synchronous, BenchStores.Opened opened,
                           Verification verification, List<Double> samples) {
    }

    static List<Result> run(int largeCount, int rounds, int batch, Consumer<String> log) {
        List<Variant> variants = new ArrayList<>();
        try {
            variants.add(variant("1,000 codes, FULL", 1000, "FULL", small()));
            variants.add(variant(String.format("%,d codes, FULL", largeCount), largeCount, "FULL",
                    BenchStores.embedded(VerifyBenchmark.prefilledDirectory(largeCount))));
            BenchStores.Opened normal = small();
            List<String> modes = SqliteFiles.setSynchronous((SqliteVerificationStore) normal.store, "NORMAL");
            log.accept("synchronous=NORMAL variant: every pooled connection reports " + modes);
            variants.add(variant("1,000 codes, NORMAL", 1000, "NORMAL", normal));
            // The large table without the sync of every commit: what the table's size costs by itself.
            BenchStores.Opened largeNormal = BenchStores.embedded(VerifyBenchmark.prefilledDirectory(largeCount));
            SqliteFiles.setSynchronous((SqliteVerificationStore) largeNormal.store, "NORMAL");
            variants.add(variant(String.format("%,d codes, NORMAL", largeCount), largeCount, "NORMAL", largeNormal));
            // A server that has run for a while has its file in the page cache: read it once, as it would be.
            SqliteFiles.readWhole(variants.get(1).opened().databaseFile());
            for (Variant variant : variants) {
                log.accept(variant.name() + ": " + SqliteFiles.countRows(variant.opened().databaseFile(),
                        TableKeys.codesPrefix()) + " codes stored");
            }
            for (int round = -1; round < rounds; round++) {
                for (int i = 0; i < variants.size(); i++) {
                    Variant variant = variants.get((i + Math.max(round, 0)) % variants.size());
                    List<Double> timings = batch(variant, "iv-" + (round + 1) + "-", batch);
                    if (round >= 0) { // round -1 warms up
                        variant.samples().addAll(timings);
                    }
                }
            }
            List<Result> results = new ArrayList<>();
            for (Variant variant : variants) {
                List<Double> sorted = new ArrayList<>(variant.samples());
                sorted.sort(Double::compare);
                results.add(new Result(variant.name(), variant.storedCodes(), variant.synchronous(),
                        sorted.get(sorted.size() / 2), sorted.get((int) (sorted.size() * 0.9)), sorted.size()));
            }
            return results;
        } finally {
            variants.forEach(variant -> variant.opened().close());
        }
    }

    private static BenchStores.Opened small() {
        BenchStores.Opened opened = BenchStores.embedded(BenchStores.temporaryDirectory());
        VerifyBenchmark.fill(opened.databaseFile(), "stored-", 1000);
        return opened;
    }

    private static Variant variant(String name, int stored, String synchronous, BenchStores.Opened opened) {
        return new Variant(name, stored, synchronous, opened,
                Fixtures.verification(opened.store, new Fixtures.KeepingSender()), new ArrayList<>());
    }

    /** Writes {@code size} fresh codes, verifies each (timed), then deletes their rows: the table keeps its size. */
    private static List<Double> batch(Variant variant, String userPrefix, int size) {
        List<Fixtures.KnownCode> codes = new ArrayList<>();
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Fixtures.KnownCode code = Fixtures.numeric(userPrefix + i);
            codes.add(code);
            items.add(CodeItems.codeItem(code.stored(), Fixtures.attemptId()));
        }
        SqliteFiles.insertItems(variant.opened().databaseFile(), items);
        List<Double> timings = new ArrayList<>();
        for (Fixtures.KnownCode code : codes) {
            long start = System.nanoTime();
            VerificationResult result = variant.verification().codes()
                    .verify(VerifyRequest.numeric(code.code(), code.userId(), code.type()));
            timings.add((System.nanoTime() - start) / 1e6);
            if (!(result instanceof VerificationResult.Valid)) {
                throw new IllegalStateException("a fresh code did not verify: " + result);
            }
        }
        List<String> prefixes = new ArrayList<>(List.of(TableKeys.user(userPrefix),
                TableKeys.rateLimitPartitionsPrefix(userPrefix)));
        codes.forEach(code -> prefixes.add(TableKeys.code(code.stored().digest()).pk()));
        SqliteFiles.deleteByPrefix(variant.opened().databaseFile(), prefixes);
        return timings;
    }
}

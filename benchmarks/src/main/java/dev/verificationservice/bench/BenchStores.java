package dev.verificationservice.bench;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** Opens the store a benchmark names: {@code embedded} (a SQLite file) or {@code dynamodb} (dynalite, proxied). */
final class BenchStores {

    private BenchStores() {
    }

    /** An open store and what it runs on, closed together. */
    static final class Opened implements AutoCloseable {
        final VerificationStore store;
        final Path dataDir; // embedded only
        final BenchDynamo dynamo; // dynamodb only

        private Opened(VerificationStore store, Path dataDir, BenchDynamo dynamo) {
            this.store = store;
            this.dataDir = dataDir;
            this.dynamo = dynamo;
        }

        Path databaseFile() {
            return dataDir.resolve(SqliteVerificationStore.DATABASE_FILE);
        }

        @Override
        public void close() {
            store.close();
            if (dynamo != null) {
                dynamo.close();
            }
        }
    }

    static Opened open(String kind) {
        return switch (kind) {
            case "embedded" -> embedded(temporaryDirectory());
            case "dynamodb" -> {
                BenchDynamo dynamo = BenchDynamo.start();
                // As the server opens it on a custom endpoint (the engine may not return the old item on a failed
                // condition, so the store reads it then).
                yield new Opened(new DynamoDbVerificationStore(dynamo.client(List.of()), BenchDynamo.TABLE,
                        new ConsumedCapacityRecorder(), false), null, dynamo);
            }
            default -> throw new IllegalArgumentException("store " + kind);
        };
    }

    /** The embedded store in {@code dataDir}, as the server opens it, without a sweep during the benchmark. */
    static Opened embedded(Path dataDir) {
        return new Opened(SqliteVerificationStore.open(dataDir, Clock.systemUTC(), Duration.ofDays(1),
                Duration.ofHours(1)), dataDir, null);
    }

    static Path temporaryDirectory() {
        try {
            Path base = Path.of("benchmarks/target/bench-data");
            Files.createDirectories(base);
            return Files.createTempDirectory(base.toAbsolutePath(), "store-");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

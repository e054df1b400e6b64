package dev.verificationservice.server.store;

import dev.verificationservice.server.config.KeyMaterial;
import dev.verificationservice.server.config.StartupException;
import dev.verificationservice.server.config.VerificationProperties;
import dev.verificationservice.spi.StoreException;
import dev.verificationservice.store.VerificationStore;
import dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder;
import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.store.dynamodb.TableShapeException;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/** Opens the store that {@code VERIFICATION_STORE} names and wraps it with latency metrics. */
@Configuration(proxyBeanMethods = false)
public class StoreConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(StoreConfiguration.class);
    public static final String CAPACITY_COUNTER = "verification.store.capacity.units";

    /**
     * @param keys taken only so that missing keys stop the start before any store is opened or reached: the
     *             message then names the missing variables, not a network error
     */
    @Bean(destroyMethod = "close")
    public VerificationStore verificationStore(VerificationProperties properties, Clock clock, MeterRegistry registry,
                                               KeyMaterial keys) {
        return switch (properties.store()) {
            case EMBEDDED -> MeteredVerificationStore.wrap(openEmbedded(properties, clock), registry, () -> { });
            case DYNAMODB -> openDynamoDb(properties, registry);
        };
    }

    private static VerificationStore openEmbedded(VerificationProperties properties, Clock clock) {
        try {
            SqliteVerificationStore store = SqliteVerificationStore.open(properties.dataDir(), clock,
                    SqliteVerificationStore.DEFAULT_SWEEP_INTERVAL, SqliteVerificationStore.DEFAULT_SWEEP_GRACE,
                    properties.embeddedLockWait());
            LOG.info("Embedded store: {}", properties.dataDir().toAbsolutePath().resolve(SqliteVerificationStore.DATABASE_FILE));
            return store;
        } catch (StoreException e) {
            throw new StartupException(e.getMessage(), "Set VERIFICATION_DATA_DIR to a directory this user can write.", e);
        }
    }

    private static VerificationStore openDynamoDb(VerificationProperties properties, MeterRegistry registry) {
        VerificationProperties.Dynamodb settings = properties.dynamodb();
        DynamoDbClient client = dynamoDbClient(settings);
        DynamoDbTableAdmin admin = new DynamoDbTableAdmin(client, settings.table());
        try {
            admin.requireShape(settings.requireTtl());
        } catch (TableShapeException e) {
            client.close();
            throw new StartupException(e.getMessage(),
                    "Create it with 'java -jar verification-server.jar create-table', or fix the table to match the "
                            + "layout in the README.", e);
        } catch (SdkException e) {
            client.close();
            throw new StartupException("Cannot reach DynamoDB table '" + settings.table() + "': " + e.getMessage(),
                    "Check AWS_REGION, the credentials, VERIFICATION_DYNAMODB_ENDPOINT and VERIFICATION_DYNAMODB_TABLE.", e);
        }
        LOG.info("DynamoDB store: table '{}'{}", settings.table(),
                settings.hasEndpoint() ? " at " + settings.endpoint() : "");
        // A custom endpoint may be an engine that ignores ReturnValuesOnConditionCheckFailure: read after a failed
        // condition there. On AWS the old item comes back with the failure and no read is needed.
        ConsumedCapacityRecorder capacity = new ConsumedCapacityRecorder();
        capacity.addListener(capacityCounter(registry));
        DynamoDbVerificationStore store = new DynamoDbVerificationStore(client, settings.table(), capacity,
                !settings.hasEndpoint());
        // The store leaves its client open on close; the server built the client, so it closes it too.
        return MeteredVerificationStore.wrap(store, registry, client::close);
    }

    /**
     * {@value #CAPACITY_COUNTER} ({@code verification_store_capacity_units_total} in Prometheus), tagged by access
     * pattern and kind ({@code read}, {@code write}): the capacity units DynamoDB reports for the store's requests,
     * table and GSI1 together. Each series appears with the first request that reports units.
     */
    static ConsumedCapacityRecorder.Listener capacityCounter(MeterRegistry registry) {
        Map<String, Counter> counters = new ConcurrentHashMap<>();
        return (pattern, kind, units) -> counters.computeIfAbsent(pattern.name() + "/" + kind.tag(),
                key -> Counter.builder(CAPACITY_COUNTER)
                        .description("DynamoDB capacity units consumed, as DynamoDB reports them")
                        .tag("pattern", pattern.name())
                        .tag("kind", kind.tag())
                        .register(registry)).increment(units);
    }

    /** A client for the configured endpoint (or AWS), region and credentials from the default AWS chains. */
    public static DynamoDbClient dynamoDbClient(VerificationProperties.Dynamodb settings) {
        // A builder, not a built client: the SDK then owns the connection pool and closes it with the client.
        // Bounded in time and attempts: a store that is down, slow or throttling gives 503 within callTimeout,
        // never a hung request. The standard strategy retries throttling, 5xx, timeouts and broken connections
        // with backoff and jitter; every write of the store is safe to run twice (see its class Javadoc).
        DynamoDbClientBuilder builder = DynamoDbClient.builder()
                .httpClientBuilder(ApacheHttpClient.builder()
                        .maxConnections(100)
                        .connectionTimeout(settings.attemptTimeout())
                        .connectionAcquisitionTimeout(settings.attemptTimeout())
                        .socketTimeout(settings.attemptTimeout()))
                .overrideConfiguration(override -> override
                        .apiCallTimeout(settings.callTimeout())
                        .apiCallAttemptTimeout(settings.attemptTimeout())
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(settings.maxAttempts()).build()));
        if (settings.hasEndpoint()) {
            builder.endpointOverride(URI.create(settings.endpoint()));
        }
        try {
            return builder.build();
        } catch (SdkException e) {
            throw new StartupException("Cannot configure the DynamoDB client: " + e.getMessage(),
                    "Set AWS_REGION (for example eu-west-1) and make AWS credentials available.", e);
        }
    }
}

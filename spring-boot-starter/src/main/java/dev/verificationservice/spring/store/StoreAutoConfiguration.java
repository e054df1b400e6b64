package dev.verificationservice.spring.store;

import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.events.WebhooksEnabled;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder;
import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.store.dynamodb.GlobalTableException;
import dev.verificationservice.store.dynamodb.TableShapeException;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * Opens the store that {@code verification.store} names, wrapped with latency metrics: the embedded SQLite file
 * in {@code verification.data-dir}, or the DynamoDB table {@code verification.dynamodb.table}, whose shape is
 * checked before the application takes traffic. On DynamoDB the store uses the application's own
 * {@link DynamoDbClient} bean when it has one (its credentials, region, HTTP client and interceptors), and
 * otherwise one built from {@code verification.dynamodb.*} with bounded timeouts and retries.
 */
@AutoConfiguration(afterName = StoreAutoConfiguration.SPRING_CLOUD_AWS_DYNAMODB)
@EnableConfigurationProperties(VerificationProperties.class)
public class StoreAutoConfiguration {

    /** Spring Cloud AWS makes a {@code DynamoDbClient} of the application's: configured after it, the starter uses it. */
    static final String SPRING_CLOUD_AWS_DYNAMODB = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration";

    private static final Logger LOG = LoggerFactory.getLogger(StoreAutoConfiguration.class);
    public static final String CAPACITY_COUNTER = "verification.store.capacity.units";

    /**
     * @param keys taken only so that missing keys stop the start before any store is opened or reached: the
     *             message then names the missing variables, not a network error
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public VerificationStore verificationStore(VerificationProperties properties, Clock clock,
                                               ObjectProvider<MeterRegistry> registries, SecretKeyRing keys,
                                               ObjectProvider<DynamoDbClient> dynamoDbClients,
                                               Environment environment) {
        MeterRegistry registry = registries.getIfAvailable(SimpleMeterRegistry::new);
        VerificationStore store = switch (properties.store()) {
            case EMBEDDED -> MeteredVerificationStore.wrap(openEmbedded(properties, clock), registry);
            case DYNAMODB -> MeteredVerificationStore.wrap(openDynamoDb(properties, theClient(dynamoDbClients), registry),
                    registry);
        };
        if (!WebhooksEnabled.on(environment)) {
            // No relay will deliver events: audit entries are written without their outbox write.
            store.eventsOff();
        }
        return store;
    }

    /** The application's one client (or its {@code @Primary} one among several), else the starter's. */
    private static DynamoDbClient theClient(ObjectProvider<DynamoDbClient> clients) {
        DynamoDbClient client = clients.getIfUnique();
        if (client == null) {
            throw new StartupException("The application has several DynamoDbClient beans, and none is @Primary: the "
                    + "verification store cannot tell which to use.",
                    "Mark the client for the verification table @Primary, or give the store its own "
                            + "VerificationStore bean built with that client.");
        }
        return client;
    }

    /**
     * The client of the DynamoDB store when the application has none: closed by the context after the store.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "verification.store", havingValue = "dynamodb")
    public DynamoDbClient verificationDynamoDbClient(VerificationProperties properties) {
        return dynamoDbClient(properties.dynamodb());
    }

    /** The store's readiness, when the application has Spring Boot's health support (actuator). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class StoreHealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "verificationStoreHealthIndicator")
        StoreHealthIndicator verificationStoreHealthIndicator(VerificationStore store, VerificationProperties properties) {
            return new StoreHealthIndicator(store, properties);
        }
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

    /** A global table of a kind the store does not run on stops the start; an allowed one is named in the log. */
    private static void requireSupportedReplication(DynamoDbTableAdmin admin, VerificationProperties.Dynamodb settings) {
        try {
            List<String> regions = admin.requireSupportedReplication(settings.globalTable());
            if (!regions.isEmpty()) {
                LOG.warn("DynamoDB table '{}' is a global table (MREC) with replicas in {}: run on the promise of "
                        + "VERIFICATION_DYNAMODB_GLOBAL_TABLE=single-writer that the service, its webhook relay "
                        + "included, writes in this Region only; a second writing Region would let a code be used "
                        + "twice", settings.table(), regions);
            }
        } catch (GlobalTableException e) {
            throw new StartupException(e.getMessage(), "Use a table of one Region, or an MREC global table written in "
                    + "one Region only with VERIFICATION_DYNAMODB_GLOBAL_TABLE=single-writer (docs/multi-region.md).", e);
        } catch (SdkException e) {
            throw new StartupException("Cannot read the replicas of DynamoDB table '" + settings.table() + "': "
                    + e.getMessage(), "Check the credentials allow dynamodb:DescribeTable on the table.", e);
        }
    }

    private static VerificationStore openDynamoDb(VerificationProperties properties, DynamoDbClient client,
                                                  MeterRegistry registry) {
        VerificationProperties.Dynamodb settings = properties.dynamodb();
        DynamoDbTableAdmin admin = new DynamoDbTableAdmin(client, settings.table());
        try {
            admin.requireShape(settings.requireTtl());
        } catch (TableShapeException e) {
            throw new StartupException(e.getMessage(),
                    "Create it with 'java -jar verification-server.jar create-table' or the CloudFormation template in "
                            + "deploy/, or fix the table to match the layout in the README.", e);
        } catch (SdkException e) {
            throw new StartupException("Cannot reach DynamoDB table '" + settings.table() + "': " + e.getMessage(),
                    "Check AWS_REGION, the credentials, VERIFICATION_DYNAMODB_ENDPOINT and VERIFICATION_DYNAMODB_TABLE.", e);
        }
        requireSupportedReplication(admin, settings);
        LOG.info("DynamoDB store: table '{}'{}", settings.table(), client.serviceClientConfiguration().endpointOverride()
                .map(endpoint -> " at " + endpoint).orElse(""));
        // A client with an endpoint override (ours from VERIFICATION_DYNAMODB_ENDPOINT, or the application's own)
        // may talk to an engine that ignores ReturnValuesOnConditionCheckFailure: read after a failed condition
        // there. On AWS's own endpoints the old item comes back with the failure and no read is needed.
        boolean conditionFailureReturnsItem = client.serviceClientConfiguration().endpointOverride().isEmpty();
        ConsumedCapacityRecorder capacity = new ConsumedCapacityRecorder();
        capacity.addListener(capacityCounter(registry));
        // The store leaves its client open on close: the client is a bean of the context, which closes it.
        return new DynamoDbVerificationStore(client, settings.table(), capacity, conditionFailureReturnsItem);
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

package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.store.CreateTableCommand;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.store.dynamodb.GlobalTableMode;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The API on the DynamoDB store, against dynalite started by the build. The table is made by the
 * {@code create-table} command itself. dynalite has no UpdateTimeToLive, so the service is told not to
 * require TTL (the one setting made for such engines). It has no TransactWriteItems either: the service talks
 * to dynalite through the test proxy that emulates them ({@link Dynalite#transactional()}), so every flow runs
 * here, the device flow included; that the transactions are atomic is DynamoDB's guarantee, not proven here.
 */
class DynamoDbApiTest extends AbstractApiTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();
    private static final String TABLE = "verification-api-" + UUID.randomUUID();

    static {
        // The AWS SDK's default chains read these; a real deployment has AWS_REGION and real credentials.
        System.setProperty("aws.region", "us-east-1");
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test");
    }

    @DynamicPropertySource
    static void dynamoDb(DynamicPropertyRegistry registry) {
        String endpoint = DYNALITE.get().transactional().endpoint().toString();
        int exitCode = CreateTableCommand.create(new VerificationProperties.Dynamodb(TABLE, endpoint, false,
                java.time.Duration.ofSeconds(3), java.time.Duration.ofSeconds(1), 3));
        // dynalite has no UpdateTimeToLive: with require-ttl=false (the third argument) create-table accepts the
        // table as the service's start does.
        assertThat(exitCode).isZero();
        registry.add("verification.store", () -> "dynamodb");
        registry.add("verification.dynamodb.table", () -> TABLE);
        registry.add("verification.dynamodb.endpoint", () -> endpoint);
        registry.add("verification.dynamodb.require-ttl", () -> "false");
        // The tests read codes from the development outbox, which on dynamodb runs only when asked for.
        registry.add("verification.dev-outbox", () -> "true");
    }

    /** The shared proxy's GSI1 lags: it catches up only here. */
    @Override
    protected void indexCatchesUp() {
        DYNALITE.get().transactional().releaseIndexes();
    }

    @Test
    void createTableOnAnEngineWithoutTtlFailsOnlyWhenTtlIsRequired() {
        String endpoint = DYNALITE.get().transactional().endpoint().toString();
        java.time.Duration three = java.time.Duration.ofSeconds(3);
        java.time.Duration one = java.time.Duration.ofSeconds(1);

        assertThat(CreateTableCommand.create(new VerificationProperties.Dynamodb(TABLE, endpoint, true, three, one, 3)))
                .as("TTL required, and dynalite cannot enable it").isEqualTo(2);
        assertThat(CreateTableCommand.create(new VerificationProperties.Dynamodb(TABLE, endpoint, false, three, one, 3)))
                .as("run again, TTL not required").isZero();
    }

    /** dynalite takes the warm throughput and ignores it: the request's shape is WarmThroughputRequestTest's. */
    @Test
    void createTableWithWarmThroughputMakesANewTableAndLeavesAnExistingOne() {
        String endpoint = DYNALITE.get().transactional().endpoint().toString();
        VerificationProperties.Dynamodb warm = new VerificationProperties.Dynamodb("verification-warm-" + UUID.randomUUID(),
                endpoint, false, java.time.Duration.ofSeconds(3), java.time.Duration.ofSeconds(1), 3,
                GlobalTableMode.NONE, 20_000L, 40_000L);
        assertThat(CreateTableCommand.create(warm)).as("new table").isZero();
        assertThat(CreateTableCommand.create(warm)).as("run again on the table it made").isZero();
        try (var client = Dynalite.client(DYNALITE.get().endpoint())) {
            assertThat(client.describeTable(request -> request.tableName(warm.table())).table().globalSecondaryIndexes())
                    .hasSize(2);
        }
    }

    @Test
    void capacityUnitsPerAccessPatternAreAPrometheusCounter() {
        String user = newUser();
        assertThat(sendEmailCode(user).status()).isEqualTo(202);
        assertThat(api.get("/v1/users/" + user + "/audit").status()).isEqualTo(200);

        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();

        // The code insert is a write, the audit page a read; each series holds the units dynalite reported.
        assertThat(units(metrics, "write", "INSERT_CODE")).isPositive();
        assertThat(units(metrics, "read", "QUERY_AUDIT")).isPositive();
        assertThat(metrics).contains("# TYPE verification_store_capacity_units_total counter");
    }

    private static double units(String metrics, String kind, String pattern) {
        Matcher line = Pattern.compile("(?m)^verification_store_capacity_units_total\\{kind=\"" + kind + "\",pattern=\""
                + pattern + "\"} ([0-9.Ee+-]+)$").matcher(metrics);
        assertThat(line.find()).as("a %s series for %s in%n%s", kind, pattern, metrics).isTrue();
        return Double.parseDouble(line.group(1));
    }
}

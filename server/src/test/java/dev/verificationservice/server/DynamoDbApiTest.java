package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.config.VerificationProperties;
import dev.verificationservice.server.store.CreateTableCommand;
import dev.verificationservice.store.dynamodb.Dynalite;
import java.util.UUID;
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
        // The table is created; only TTL cannot be enabled on dynalite, which create-table reports as a difference.
        assertThat(exitCode).isEqualTo(2);
        registry.add("verification.store", () -> "dynamodb");
        registry.add("verification.dynamodb.table", () -> TABLE);
        registry.add("verification.dynamodb.endpoint", () -> endpoint);
        registry.add("verification.dynamodb.require-ttl", () -> "false");
        // The tests read codes from the development outbox, which on dynamodb runs only when asked for.
        registry.add("verification.dev-outbox", () -> "true");
    }
}

package dev.verificationservice.server.store;

import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.store.StoreAutoConfiguration;
import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code create-table}: creates the single table with the configured name (on-demand billing, GSI1 with
 * ALL projection), enables TTL on {@code ttl}, then checks the table's shape as the service's start does. Safe to
 * run again: an existing table is left as it is and only checked. With {@code VERIFICATION_DYNAMODB_REQUIRE_TTL=false}
 * an engine without TTL passes (exit 0), as the service then starts on it; otherwise TTL is part of the check. Reads the same settings as the service
 * ({@code VERIFICATION_DYNAMODB_TABLE}, {@code VERIFICATION_DYNAMODB_ENDPOINT}, {@code AWS_REGION}), and a new
 * table's warm throughput ({@code VERIFICATION_DYNAMODB_WARM_WRITE_UNITS}, {@code _READ_UNITS}; unset: none sent).
 */
public final class CreateTableCommand {

    public static final String NAME = "create-table";
    private static final Logger LOG = LoggerFactory.getLogger(CreateTableCommand.class);

    /** Only the settings; none of the service starts. */
    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(VerificationProperties.class)
    static class Settings {
    }

    private CreateTableCommand() {
    }

    /** Returns the process exit code: 0 when the table exists with the right shape afterwards. */
    public static int run(String[] args) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Settings.class)
                .web(WebApplicationType.NONE).logStartupInfo(false).run(args)) {
            VerificationProperties.Dynamodb settings = context.getBean(VerificationProperties.class).dynamodb();
            return create(settings);
        }
    }

    private static boolean ttlOnly(List<String> differences) {
        return differences.stream().allMatch(difference -> difference.startsWith("TTL "));
    }

    /** Creates (or finds) the table, enables TTL and checks the shape; returns the exit code, as {@link #run}. */
    public static int create(VerificationProperties.Dynamodb settings) {
        try (DynamoDbClient client = StoreAutoConfiguration.dynamoDbClient(settings)) {
            DynamoDbTableAdmin admin = new DynamoDbTableAdmin(client, settings.table(),
                    DynamoDbTableAdmin.warmThroughput(settings.warmWriteUnits(), settings.warmReadUnits()));
            DynamoDbTableAdmin.CreateOutcome outcome = admin.createTable();
            LOG.info("Table '{}': {}", settings.table(), switch (outcome) {
                case CREATED -> "created (on-demand, GSI1, OUTBOX)";
                case INDEX_ADDED -> "already exists; the OUTBOX index was added";
                case ALREADY_EXISTS -> "already exists, left as it is";
            });
            if (admin.warm() != null && outcome != DynamoDbTableAdmin.CreateOutcome.CREATED) {
                LOG.warn("VERIFICATION_DYNAMODB_WARM_*_UNITS apply to a new table only; raise an existing table's warm "
                        + "throughput with UpdateTable or the stack's parameters (docs/deployment.md)");
            } else if (admin.warm() != null) {
                LOG.info("Table '{}' and its indexes pre-warmed to {}", settings.table(), admin.warm());
            }
            try {
                admin.enableTimeToLive();
                LOG.info("TTL enabled on attribute 'ttl'");
            } catch (SdkException e) {
                if (settings.requireTtl()) {
                    LOG.warn("Could not enable TTL on 'ttl': {}", e.getMessage());
                } else {
                    // The service judges validity itself; TTL only cleans up. An engine without it (dynalite,
                    // some emulators) is fine for development, which is what require-ttl=false says.
                    LOG.warn("Could not enable TTL on 'ttl' ({}); VERIFICATION_DYNAMODB_REQUIRE_TTL=false, so the "
                            + "table is accepted without it: expired items stay until deleted", e.getMessage());
                }
            }
            // The same check as the service's start: TTL is part of it unless require-ttl=false.
            List<String> differences = admin.shapeDifferences(settings.requireTtl());
            if (differences.isEmpty()) {
                LOG.info("Table '{}' has the expected shape.", settings.table());
                return 0;
            }
            LOG.error("Table '{}' differs from the expected shape: {}.{}", settings.table(),
                    String.join("; ", differences), settings.requireTtl() && ttlOnly(differences)
                            ? " On a local engine without TTL, set VERIFICATION_DYNAMODB_REQUIRE_TTL=false." : "");
            return 2;
        } catch (SdkException e) {
            LOG.error("create-table failed: {}. Check AWS_REGION, the credentials and VERIFICATION_DYNAMODB_ENDPOINT.",
                    e.getMessage());
            return 1;
        }
    }
}

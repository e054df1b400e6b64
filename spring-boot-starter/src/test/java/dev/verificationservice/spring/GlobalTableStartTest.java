package dev.verificationservice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import dev.verificationservice.spring.store.StoreAutoConfiguration;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The start on a global table, as an operator meets it: dynalite behind a proxy that answers DescribeTable as
 * DynamoDB does for a table with a replica in another Region (the table itself is real). Refused, naming
 * VERIFICATION_DYNAMODB_GLOBAL_TABLE; started once the operator sets it to {@code single-writer}.
 */
class GlobalTableStartTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private DynamoDbFaultProxy proxy;
    private ApplicationContextRunner runner;

    @BeforeEach
    void aGlobalTable() {
        String table = "verification-global-" + UUID.randomUUID();
        new DynamoDbTableAdmin(DYNALITE.get().client(), table).createTable();
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint());
        proxy.inject(Fault.rewriteAnswer("DescribeTable", "an MREC replica in eu-west-1", answer -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> described = new HashMap<>((Map<String, Object>) answer.get("Table"));
            described.put("Replicas", List.of(Map.of("RegionName", "eu-west-1", "ReplicaStatus", "ACTIVE")));
            described.put("MultiRegionConsistency", "EVENTUAL");
            Map<String, Object> rewritten = new HashMap<>(answer);
            rewritten.put("Table", described);
            return rewritten;
        }).always());
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(StoreAutoConfiguration.class, DeliveryAutoConfiguration.class,
                        VerificationAutoConfiguration.class))
                // The application's own client, of the proxy (as a host application on AWS brings one).
                .withBean(DynamoDbClient.class, () -> Dynalite.client(proxy.endpoint()))
                .withPropertyValues("verification.store=dynamodb", "verification.dynamodb.table=" + table,
                        "verification.dynamodb.require-ttl=false",
                        "verification.secret-keys=SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=",
                        "verification.encryption-keys=6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=",
                        "verification.dev-outbox=true");
    }

    @AfterEach
    void close() {
        proxy.close();
    }

    @Test
    void anMrecGlobalTableStopsTheStartNamingTheSettingThatWouldAllowIt() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            while (!(failure instanceof StartupException) && failure.getCause() != null) {
                failure = failure.getCause();
            }
            assertThat(failure).isInstanceOfSatisfying(StartupException.class, startup -> {
                assertThat(startup).hasMessageContaining("replicas in eu-west-1")
                        .hasMessageContaining("VERIFICATION_DYNAMODB_GLOBAL_TABLE=single-writer");
                assertThat(startup.action()).contains("VERIFICATION_DYNAMODB_GLOBAL_TABLE=single-writer");
            });
        });
    }

    @Test
    void theSingleWriterPromiseLetsItStart() {
        runner.withPropertyValues("verification.dynamodb.global-table=single-writer")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(VerificationStore.class));
    }
}

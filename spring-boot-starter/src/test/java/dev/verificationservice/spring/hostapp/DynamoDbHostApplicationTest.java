package dev.verificationservice.spring.hostapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

/**
 * The host application on the DynamoDB store with a {@link DynamoDbClient} bean of its own: the starter's store
 * uses that client (the application's credentials, region and HTTP settings) and builds none. dynalite, started
 * by the build, behind the test proxy that emulates TransactWriteItems (dynalite has none; that transactions are
 * atomic is DynamoDB's guarantee, not shown here).
 */
@SpringBootTest(classes = {HostApplication.class, DynamoDbHostApplicationTest.OwnClient.class})
class DynamoDbHostApplicationTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();
    private static final String TABLE = "verification-host-" + UUID.randomUUID();

    @DynamicPropertySource
    static void dynamoDb(DynamicPropertyRegistry registry) {
        DynamoDbHost.settings(registry, DYNALITE, TABLE);
    }

    /** The application's own client, as a team on AWS has one already. */
    @TestConfiguration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean
        DynamoDbClient hostDynamoDbClient() {
            return Dynalite.client(DYNALITE.get().transactional().endpoint());
        }
    }

    @Autowired
    EmailConfirmation confirmation;

    @Autowired
    DeliveryChannels channels;

    @Autowired
    ApplicationContext context;

    @Autowired
    DynamoDbClient client;

    @Test
    void aCodeSentThroughTheHostApplicationConfirmsOnceInTheTableThroughItsOwnClient() {
        assertThat(context.getBeanNamesForType(DynamoDbClient.class)).containsExactly("hostDynamoDbClient");
        int before = client.scan(ScanRequest.builder().tableName(TABLE).build()).count();

        assertThat(confirmation.sendCode("host-user-1", "jane.host@example.com")).isTrue();
        String code = channels.outbox().orElseThrow().messages().stream()
                .filter(message -> message.to().equals("jane.host@example.com")).findFirst().orElseThrow().code();

        assertThat(client.scan(ScanRequest.builder().tableName(TABLE).build()).count())
                .as("the code, its counters and its audit entry are items of the table").isGreaterThan(before);
        assertThat(confirmation.confirm("host-user-1", code)).isTrue();
        assertThat(confirmation.confirm("host-user-1", code)).as("a code is used up once").isFalse();
        HealthIndicator health = context.getBean("verificationStoreHealthIndicator", HealthIndicator.class);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    }
}

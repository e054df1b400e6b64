package dev.verificationservice.spring.security.loginapp;

import dev.verificationservice.spring.hostapp.DynamoDbHost;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Spring Security's passkeys on the DynamoDB store, the RP ID set: dynalite, started by the build, behind the test
 * proxy that emulates TransactWriteItems (as in {@code DynamoDbHostApplicationTest}).
 */
@SpringBootTest(classes = {LoginHostApplication.class, PasskeyLoginContract.MovableClock.class,
        DynamoDbPasskeyLoginTest.OwnClient.class})
@AutoConfigureMockMvc
class DynamoDbPasskeyLoginTest extends PasskeyLoginContract {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();
    private static final String TABLE = "verification-passkeys-" + UUID.randomUUID();

    /** The application's own client (the starter then builds none), as in {@code DynamoDbHostApplicationTest}. */
    @TestConfiguration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean
        DynamoDbClient hostDynamoDbClient() {
            return Dynalite.client(DYNALITE.get().transactional().endpoint());
        }
    }

    @DynamicPropertySource
    static void dynamoDb(DynamicPropertyRegistry registry) {
        DynamoDbHost.settings(registry, DYNALITE, TABLE);
        registry.add("verification.passkeys.rp-id", () -> "localhost");
        registry.add("verification.passkeys.origins", () -> ORIGIN);
    }
}

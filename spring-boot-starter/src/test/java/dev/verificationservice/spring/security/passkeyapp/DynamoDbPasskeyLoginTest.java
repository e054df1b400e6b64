package dev.verificationservice.spring.security.passkeyapp;

import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Spring Security's passkeys on the DynamoDB store, the RP ID set: dynalite, started by the build, behind the test
 * proxy that emulates TransactWriteItems (as in {@code DynamoDbHostApplicationTest}).
 */
@SpringBootTest(classes = {PasskeyHostApplication.class, PasskeyLoginContract.Parts.class,
        DynamoDbPasskeyLoginTest.OwnClient.class})
@AutoConfigureMockMvc
class DynamoDbPasskeyLoginTest extends PasskeyLoginContract {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();
    private static final String TABLE = "verification-passkeys-" + UUID.randomUUID();

    @TestConfiguration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean
        DynamoDbClient hostDynamoDbClient() {
            return Dynalite.client(DYNALITE.get().transactional().endpoint());
        }
    }

    @DynamicPropertySource
    static void dynamoDb(DynamicPropertyRegistry registry) {
        new DynamoDbTableAdmin(DYNALITE.get().transactional().client(), TABLE).createTable();
        registry.add("verification.store", () -> "dynamodb");
        registry.add("verification.dynamodb.table", () -> TABLE);
        registry.add("verification.dynamodb.require-ttl", () -> "false");
        registry.add("verification.secret-keys", () -> "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=");
        registry.add("verification.encryption-keys", () -> "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=");
        // No delivery channel: passkeys send nothing, but the service wants a channel or the development outbox.
        registry.add("verification.dev-outbox", () -> "true");
        registry.add("verification.passkeys.rp-id", () -> "localhost");
        registry.add("verification.passkeys.origins", () -> ORIGIN);
    }
}

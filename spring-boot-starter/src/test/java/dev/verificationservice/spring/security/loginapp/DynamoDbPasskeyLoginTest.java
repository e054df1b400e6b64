package dev.verificationservice.spring.security.loginapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.spring.hostapp.DynamoDbHost;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import jakarta.servlet.http.Cookie;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Spring Security's passkeys on the DynamoDB store, the RP ID set: dynalite, started by the build, behind the test
 * proxy that emulates TransactWriteItems (as in {@code DynamoDbHostApplicationTest}); and a second instance on the
 * same table, since the browser holds only the challenge's name.
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

    /** The passkey settings beside the table's: DynamoDB has no default RP ID. */
    private static final Map<String, String> PASSKEYS = Map.of("verification.passkeys.rp-id", "localhost",
            "verification.passkeys.origins", ORIGIN);

    @DynamicPropertySource
    static void dynamoDb(DynamicPropertyRegistry registry) {
        DynamoDbHost.settings(registry, DYNALITE, TABLE);
        PASSKEYS.forEach((name, value) -> registry.add(name, () -> value));
    }

    @Test
    void theOptionsOfOneInstanceAreAnsweredOnAnotherAndTheReplayOnEitherIsRefused() throws Exception {
        Map<String, Object> settings = new HashMap<>(DynamoDbHost.properties(TABLE));
        settings.putAll(PASSKEYS);
        settings.put("server.port", "0");
        // The second instance reads this one's clock: instances that share a table agree on the time.
        try (ConfigurableApplicationContext other = new SpringApplicationBuilder(LoginHostApplication.class,
                OwnClient.class).properties(settings)
                .initializers(context -> context.getBeanFactory().registerSingleton("sharedClock", clock)).run()) {
            MockMvc second = MockMvcBuilders.webAppContextSetup((WebApplicationContext) other)
                    .apply(SecurityMockMvcConfigurers.springSecurity()).build();
            SoftwareAuthenticator authenticator = SoftwareAuthenticator.withCounter();
            register("alice", authenticator);

            Cookie cookie = signInOptionsCookie(second);
            String assertion = authenticator.sign(cookie.getValue(), "localhost", ORIGIN);
            assertThat(signIn(assertion, cookie).getResponse().getStatus()).as("answered on the first instance")
                    .isEqualTo(200);
            assertThat(signIn(second, assertion, cookie).getResponse().getStatus()).as("replayed on the second")
                    .isEqualTo(401);
            assertThat(signIn(assertion, cookie).getResponse().getStatus()).as("replayed on the first")
                    .isEqualTo(401);
        }
    }
}

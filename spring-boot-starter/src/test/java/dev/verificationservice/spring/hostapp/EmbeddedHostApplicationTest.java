package dev.verificationservice.spring.hostapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The host application with nothing configured but a data directory: the starter puts its {@code Verification}
 * on the embedded store (a real SQLite file there), with a generated HMAC key, the development outbox (no
 * channel is configured), the store's latency in the application's MeterRegistry and its health indicator.
 */
@SpringBootTest(classes = HostApplication.class)
class EmbeddedHostApplicationTest {

    private static Path dataDir;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        dataDir = Files.createTempDirectory("verification-host-app");
        registry.add("verification.data-dir", dataDir::toString);
    }

    @Autowired
    EmailConfirmation confirmation;

    @Autowired
    DeliveryChannels channels;

    @Autowired
    MeterRegistry registry;

    @Autowired
    ApplicationContext context;

    @Test
    void aCodeSentThroughTheHostApplicationConfirmsOnceOnTheEmbeddedStore() {
        assertThat(confirmation.sendCode("host-user-1", "jane.host@example.com")).isTrue();
        String code = codeSentTo("jane.host@example.com");

        assertThat(confirmation.confirm("host-user-1", "000000".equals(code) ? "111111" : "000000")).isFalse();
        assertThat(confirmation.confirm("host-user-1", code)).isTrue();
        assertThat(confirmation.confirm("host-user-1", code)).as("a code is used up once").isFalse();

        assertThat(dataDir.resolve(SqliteVerificationStore.DATABASE_FILE)).isRegularFile();
        assertThat(dataDir.resolve("secret-key")).as("the generated HMAC key").isRegularFile();
        assertThat(dataDir.resolve("api-key")).as("API keys are the server's, not the starter's").doesNotExist();
    }

    @Test
    void theStoreIsMeteredAndHasAHealthIndicator() {
        confirmation.sendCode("host-user-2", "john.host@example.com");

        assertThat(registry.find("verification.store.operation").tag("operation", "placeCode").timer())
                .as("the store's latency in the application's registry").isNotNull();
        HealthIndicator health = context.getBean("verificationStoreHealthIndicator", HealthIndicator.class);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    }

    private String codeSentTo(String email) {
        DevelopmentOutbox outbox = channels.outbox().orElseThrow();
        return outbox.messages().stream().filter(message -> message.to().equals(email)).findFirst().orElseThrow().code();
    }
}

package dev.verificationservice.spring.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.events.RelayRunner;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import dev.verificationservice.spring.store.StoreAutoConfiguration;
import dev.verificationservice.testsupport.webhooks.StandardWebhooksVerifier;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;

/** The starter's relay: on with the embedded store, off on DynamoDB until encryption keys are set. */
class WebhookAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(StoreAutoConfiguration.class, DeliveryAutoConfiguration.class,
                    VerificationAutoConfiguration.class, WebhookAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @Test
    void onTheEmbeddedStoreTheRelayRunsAndAnEventArrivesSigned() throws Exception {
        Path dataDir = Files.createTempDirectory("verification-webhooks");
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            runner.withPropertyValues("verification.data-dir=" + dataDir,
                    "verification.webhooks.poll-interval=PT0.05S").run(context -> {
                assertThat(context).hasNotFailed().hasSingleBean(RelayRunner.class).hasSingleBean(Webhooks.class);
                assertThat(dataDir.resolve(WebhookAutoConfiguration.ENCRYPTION_KEY_FILE)).isRegularFile();
                Webhooks.Registration endpoint = context.getBean(Webhooks.class)
                        .register(receiver.url().toString(), List.of("devices.revoked"), Optional.empty());

                context.getBean(Verification.class).audit().recordSuccess("ada", AuditEventType.DEVICES_REVOKED,
                        Map.of("count", "2"), ClientContext.none());

                assertThat(receiver.awaitReceived(1, Duration.ofMinutes(1))).as("the relay delivered").isTrue();
                // Stopping lets the attempt in flight write its outcome (and count it) before the checks below.
                context.getBean(RelayRunner.class).close();
                WebhookReceiver.Received request = receiver.received().get(0);
                assertThat(request.bodyText()).contains("\"type\":\"devices.revoked\"", "\"count\":\"2\"");
                assertThat(new StandardWebhooksVerifier(endpoint.secret().text()).verifies(request.id(),
                        request.timestamp(), request.signature(), request.body(), Instant.now())).isTrue();
                assertThat(context.getBean(MeterRegistry.class).get("verification.webhooks.deliveries")
                        .tag("outcome", "DELIVERED").counter().count()).isEqualTo(1);
            });
        }
    }

    @Test
    void theStartersDefaultsAreTheRelaysOwn() {
        WebhookProperties bound = new Binder(new MapConfigurationPropertySource(Map.of()))
                .bindOrCreate("verification.webhooks", WebhookProperties.class);

        assertThat(bound.settings()).isEqualTo(dev.verificationservice.events.WebhookSettings.defaults());
    }

    @Test
    void onDynamoDbWithoutEncryptionKeysTheRelayIsOffSoAnUpgradeStartsUnchanged() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
                .withPropertyValues("verification.store=dynamodb")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelayRunner.class)
                        .doesNotHaveBean(Webhooks.class));
    }

    @Test
    void onDynamoDbWebhooksAskedForWithoutKeysRefuseToStartNamingTheSetting() {
        VerificationProperties dynamodb = new Binder(new MapConfigurationPropertySource(Map.of(
                "verification.store", "dynamodb"))).bindOrCreate("verification", VerificationProperties.class);

        assertThatThrownBy(() -> new WebhookAutoConfiguration().verificationEncryptionKeys(dynamodb,
                new MockEnvironment())).isInstanceOf(StartupException.class)
                .hasMessageContaining("VERIFICATION_ENCRYPTION_KEYS");
    }

    @Test
    void theStoreReadsTheEndpointsAgainAtTheConfiguredIntervalAndARefusedIntervalStopsTheStart() throws IOException {
        Path dataDir = Files.createTempDirectory("verification-webhooks");
        runner.withPropertyValues("verification.data-dir=" + dataDir,
                "verification.webhooks.subscriptions-refresh=PT5S").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(VerificationStore.class).eventSubscriptions().refreshInterval())
                    .isEqualTo(Duration.ofSeconds(5));
        });
        runner.withPropertyValues("verification.data-dir=" + dataDir,
                "verification.webhooks.subscriptions-refresh=PT0S").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("VERIFICATION_WEBHOOKS_SUBSCRIPTIONS_REFRESH"));
    }

    @Test
    void offWhenDisabledAndThenAuditEntriesEnterNoOutbox() throws IOException {
        Path dataDir = Files.createTempDirectory("verification-webhooks");
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.webhooks.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RelayRunner.class);
                    context.getBean(Verification.class).audit().recordSuccess("ada", AuditEventType.DEVICES_REVOKED,
                            Map.of(), ClientContext.none());
                    VerificationStore store = context.getBean(VerificationStore.class);
                    assertThat(store.audit().queryAudit("ada", Instant.EPOCH, Instant.now(), Optional.empty(), 10,
                            Instant.now())).hasSize(1);
                    assertThat(store.webhooks().undeliveredEvents(10)).isEmpty();
                });
    }
}

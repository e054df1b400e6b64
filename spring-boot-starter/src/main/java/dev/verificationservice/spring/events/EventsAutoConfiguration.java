package dev.verificationservice.spring.events;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayRunner;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookSettings;
import dev.verificationservice.events.WebhookTransport;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Events out (contract §15) in a Spring Boot application: the operator's {@link Webhooks} on the store, and the relay
 * that delivers events, started with the application on threads of its own (bounded: {@code workers} senders and one
 * poller) and stopped before the store closes. Each bean backs off when the application declares its own; a
 * {@link WebhookTransport} bean replaces the JDK client, an {@link AddressResolver} bean the system resolver.
 */
@AutoConfiguration(after = VerificationAutoConfiguration.class)
@EnableConfigurationProperties(WebhookProperties.class)
public class EventsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public EndpointUrls webhookEndpointUrls(WebhookProperties properties, ObjectProvider<AddressResolver> resolver) {
        return new EndpointUrls(properties.allowPrivateAddresses(), resolver.getIfAvailable(AddressResolver::system));
    }

    @Bean
    @ConditionalOnMissingBean
    public Webhooks webhooks(VerificationStore store, ObjectProvider<EncryptionKeyRing> encryption,
                             SecretKeyRing keys, EndpointUrls urls, Clock clock) {
        return new Webhooks(store.webhooks(), store, encryption.getIfAvailable(() -> derivedFrom(keys)), urls,
                new SecureTokens(), clock);
    }

    @Bean
    @ConditionalOnMissingBean
    public WebhookMetrics webhookMetrics(ObjectProvider<MeterRegistry> registries, VerificationStore store,
                                         Clock clock) {
        return new WebhookMetrics(registries.getIfAvailable(SimpleMeterRegistry::new), store.webhooks(), clock);
    }

    @Bean
    @ConditionalOnMissingBean
    public WebhookRelay webhookRelay(VerificationStore store, Webhooks webhooks, EndpointUrls urls,
                                     ObjectProvider<WebhookTransport> transport, Verification verification,
                                     WebhookMetrics metrics, Clock clock) {
        // Names this instance in the leases it takes: random, so two instances never mistake one's lease for theirs.
        String owner = "relay-" + new SecureTokens().randomHex(8);
        return new WebhookRelay(store.webhooks(), webhooks, urls, transport.getIfAvailable(JdkWebhookTransport::new),
                verification.audit(), metrics, clock, owner);
    }

    @Bean
    @ConditionalOnMissingBean
    public RelayLifecycle webhookRelayLifecycle(WebhookRelay relay, WebhookProperties properties) {
        WebhookSettings settings;
        try {
            settings = new WebhookSettings(properties.allowPrivateAddresses(), properties.workers(),
                    properties.perEndpointConcurrency(), properties.pollInterval(), properties.batchSize());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StartupException("A VERIFICATION_WEBHOOKS_* setting is not usable: " + e.getMessage() + ".",
                    "Give VERIFICATION_WEBHOOKS_WORKERS, _PER_ENDPOINT_CONCURRENCY and _BATCH_SIZE of at least 1 "
                            + "and a positive VERIFICATION_WEBHOOKS_POLL_INTERVAL (PT1S).", e);
        }
        return new RelayLifecycle(() -> new RelayRunner(relay, settings), properties.relay());
    }

    /**
     * Until an {@link EncryptionKeyRing} bean exists (the TOTP work adds {@code VERIFICATION_ENCRYPTION_KEYS}), the
     * endpoint secrets are sealed under a key derived from the current HMAC key: as persistent as that key, and never
     * the HMAC key itself.
     */
    static EncryptionKeyRing derivedFrom(SecretKeyRing keys) {
        try {
            byte[] key = MessageDigest.getInstance("SHA-256")
                    .digest(keys.currentDigest("webhook-endpoint-secrets").getBytes(StandardCharsets.UTF_8));
            return EncryptionKeyRing.ofKeys(List.of(key));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java 17 runtime", e);
        }
    }
}

package dev.verificationservice.spring.events;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayRunner;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.keys.SecretKeys;
import dev.verificationservice.Verification;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Events out in a Spring Boot application: the {@link Webhooks} service of the operator API, and the relay on
 * threads of its own ({@link RelayRunner}: bounded workers, a per-endpoint limit), started with the context and
 * stopped with it, its meters in the application's registry. Off when {@code verification.webhooks.enabled=false},
 * and by default on DynamoDB until {@code VERIFICATION_ENCRYPTION_KEYS} is set (see {@link WebhookProperties}).
 */
@AutoConfiguration(afterName = "dev.verificationservice.spring.core.VerificationAutoConfiguration")
@EnableConfigurationProperties(WebhookProperties.class)
@Conditional(WebhooksEnabled.class)
public class WebhookAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookAutoConfiguration.class);
    static final String ENCRYPTION_KEYS = "verification.encryption-keys";
    static final String ENCRYPTION_KEY_FILE = "encryption-key";

    /**
     * The AES-256 keys endpoint secrets are sealed under ({@code VERIFICATION_ENCRYPTION_KEYS}, base64, current
     * first); on the embedded store one is generated beside the HMAC key when none is set. Backs off when the
     * application (or another part of the starter) declares the ring.
     */
    @Bean
    @ConditionalOnMissingBean
    public EncryptionKeyRing verificationEncryptionKeys(VerificationProperties properties, Environment environment) {
        List<String> keys = SecretKeys.nonBlank(Binder.get(environment)
                .bind(ENCRYPTION_KEYS, Bindable.listOf(String.class)).orElse(List.of()));
        if (keys.isEmpty()) {
            if (properties.store() == VerificationProperties.StoreKind.DYNAMODB) {
                throw new StartupException("Webhooks on the dynamodb store need VERIFICATION_ENCRYPTION_KEYS, and it "
                        + "is not set.", "Set VERIFICATION_ENCRYPTION_KEYS (comma-separated base64 AES-256 keys, "
                        + "current first), the same on every instance, from: openssl rand -base64 32; or set "
                        + "VERIFICATION_WEBHOOKS_ENABLED=false");
            }
            keys = List.of(SecretKeys.loadOrGenerate(properties.dataDir().resolve(ENCRYPTION_KEY_FILE),
                    new SecureRandom(), "encryption key", false));
        }
        try {
            return EncryptionKeyRing.fromBase64(keys);
        } catch (IllegalArgumentException e) {
            throw new StartupException("VERIFICATION_ENCRYPTION_KEYS is not usable: " + e.getMessage() + ".",
                    "Give base64 keys of 32 random bytes, for example from: openssl rand -base64 32", e);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    public EndpointUrls webhookEndpointUrls(WebhookProperties properties) {
        return new EndpointUrls(properties.allowPrivateAddresses(), AddressResolver.system());
    }

    @Bean
    @ConditionalOnMissingBean
    public Webhooks webhooks(VerificationStore store, EncryptionKeyRing keys, EndpointUrls urls, Clock clock,
                             WebhookProperties properties) {
        store.eventSubscriptions().refreshEvery(properties.subscriptionsRefreshInterval());
        return new Webhooks(store.webhooks(), keys, urls, new SecureTokens(), clock);
    }

    @Bean
    @ConditionalOnMissingBean
    public WebhookMetrics webhookMetrics(ObjectProvider<MeterRegistry> registries, VerificationStore store,
                                         Clock clock) {
        return new WebhookMetrics(registries.getIfAvailable(SimpleMeterRegistry::new), store.webhooks(), clock);
    }

    /** The relay, polling from the start of the context; its threads are daemons and stop with the context. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RelayRunner webhookRelay(VerificationStore store, Webhooks webhooks, EndpointUrls urls,
                                    Verification verification, WebhookMetrics metrics, WebhookProperties properties,
                                    Clock clock) {
        String owner = "relay-" + new SecureTokens().randomHex(8);
        WebhookRelay relay = new WebhookRelay(store.webhooks(), webhooks, urls, new JdkWebhookTransport(),
                verification.audit(), metrics, clock, owner);
        LOG.info("Webhook relay {} started: {} workers, at most {} per endpoint, polling every {}", owner,
                properties.workers(), properties.perEndpointConcurrency(), properties.pollInterval());
        return new RelayRunner(relay, properties.settings()).start();
    }
}

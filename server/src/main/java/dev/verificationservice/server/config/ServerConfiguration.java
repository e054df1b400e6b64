package dev.verificationservice.server.config;

import dev.verificationservice.console.ConsoleConfiguration;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.settings.SettingsRules;
import java.security.SecureRandom;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The server's keys, and the support console from its own module, on those keys. Everything else (the
 * {@code Verification}, its store, delivery, metrics, health) comes from the starter's auto-configuration, as in any
 * host application.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ServiceProperties.class)
@Import(ConsoleConfiguration.class)
public class ServerConfiguration {

    /**
     * The server's rules for its keys and console, run by the starter's settings check with its own before any bean
     * is built, so that one refused start names every problem.
     */
    @Bean
    public static SettingsRules serverSettingsRules() {
        return settings -> {
            ServiceProperties server = settings.bind("verification", ServiceProperties.class);
            if (settings.builds("keyMaterial")) {
                KeyMaterial.check(server, settings.verification(), settings.problems());
            }
        };
    }

    @Bean
    public KeyMaterial keyMaterial(ServiceProperties server, VerificationProperties verification) {
        return KeyMaterial.resolve(server, verification, new SecureRandom());
    }

    /**
     * The HMAC keys, as the server resolved them with its API keys (so that a start without keys names every
     * missing variable at once); the starter's own resolution of {@code verification.secret-keys} backs off.
     */
    @Bean
    public SecretKeyRing verificationSecretKeys(KeyMaterial keys) {
        return keys.secretKeys();
    }
}

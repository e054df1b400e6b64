package dev.verificationservice.server.config;

import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.spring.VerificationProperties;
import java.security.SecureRandom;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The server's keys. Everything else (the {@code Verification}, its store, delivery, metrics, health) comes from
 * the starter's auto-configuration, as in any host application.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ServiceProperties.class)
public class ServerConfiguration {

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

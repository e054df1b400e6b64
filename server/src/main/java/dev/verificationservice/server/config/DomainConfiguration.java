package dev.verificationservice.server.config;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.store.VerificationStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The core library's services, wired to the configured store, keys, delivery and clock. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(VerificationProperties.class)
public class DomainConfiguration {

    @Bean
    public Clock clock() {
        return Clock.systemUTC();
    }

    @Bean
    public KeyMaterial keyMaterial(VerificationProperties properties) {
        return KeyMaterial.resolve(properties, new SecureRandom());
    }

    @Bean
    public VerificationSettings verificationSettings(VerificationProperties properties) {
        return VerificationSettings.defaults()
                .withCodeTtl(properties.codeTtl())
                .withDeviceTtl(properties.deviceTtl())
                .withAuditRetention(auditRetention(properties.auditRetention()));
    }

    @Bean
    public Verification verification(VerificationStore store, KeyMaterial keys, CodeSender sender, Clock clock,
                                     VerificationSettings settings) {
        return Verification.builder().store(store).keys(keys.secretKeys()).sender(sender).clock(clock)
                .settings(settings).build();
    }

    /** {@code forever} keeps audit entries without a ttl; anything else is a duration ({@code P90D}, {@code 90d}). */
    static Optional<Duration> auditRetention(String value) {
        if (value == null || value.isBlank()) {
            return Optional.of(VerificationSettings.DEFAULT_AUDIT_RETENTION);
        }
        if (value.trim().equalsIgnoreCase("forever")) {
            return Optional.empty();
        }
        try {
            return Optional.of(DurationStyle.detectAndParse(value.trim()));
        } catch (IllegalArgumentException e) {
            throw new StartupException("VERIFICATION_AUDIT_RETENTION '" + value + "' is neither a duration nor 'forever'.",
                    "Give an ISO-8601 duration such as P90D, or 'forever'.", e);
        }
    }
}

package dev.verificationservice.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.verificationservice.VerificationSettings;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code verification.passkeys.*}: the defaults of each store, and a wrong RP ID or origin refused naming its setting. */
class PasskeySettingsTest {

    private static VerificationProperties bound(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings)).bindOrCreate("verification",
                VerificationProperties.class);
    }

    private static StartupException refused(Map<String, String> settings) {
        VerificationProperties properties = bound(settings);
        return (StartupException) catchThrowable(() -> PasskeySettings.policy(properties));
    }

    @Test
    void theEmbeddedStoreServesLocalhostAndDynamoDbLeavesPasskeysOffUntilAnRpIdIsSet() {
        assertThat(PasskeySettings.policy(bound(Map.of()))).hasValueSatisfying(policy -> {
            assertThat(policy.rpId()).isEqualTo("localhost");
            assertThat(policy.origins()).containsExactly("http://localhost:8080");
            assertThat(policy.challengeLifetime()).isEqualTo(PasskeyPolicy.DEFAULT_CHALLENGE_LIFETIME);
            assertThat(policy.maxPasskeys()).isEqualTo(PasskeyPolicy.DEFAULT_MAX_PASSKEYS);
            assertThat(policy.userVerificationRequired()).isFalse();
        });
        assertThat(PasskeySettings.policy(bound(Map.of("verification.store", "dynamodb")))).isEmpty();
        assertThat(PasskeySettings.policy(bound(Map.of("verification.store", "dynamodb",
                "verification.passkeys.rp-id", "example.com", "verification.passkeys.origins",
                "https://login.example.com, https://example.com", "verification.passkeys.rp-name", "Example",
                "verification.passkeys.challenge-lifetime", "PT2M", "verification.passkeys.max-per-user", "3",
                "verification.passkeys.user-verification-required", "true"))))
                .contains(new PasskeyPolicy("example.com", "Example", Set.of("https://login.example.com",
                        "https://example.com"), Duration.ofMinutes(2), 3, true, PasskeyPolicy.DEFAULT_VERIFY_LIMIT));
    }

    @Test
    void aWrongRpIdOrOriginStopsTheStartNamingItsSetting() {
        assertThat(refused(Map.of("verification.passkeys.rp-id", "https://Example.com")))
                .hasMessageStartingWith("VERIFICATION_PASSKEYS_RP_ID 'https://Example.com' is not usable");
        assertThat(refused(Map.of("verification.passkeys.rp-id", "example.com")))
                .hasMessage("VERIFICATION_PASSKEYS_RP_ID is example.com, but VERIFICATION_PASSKEYS_ORIGINS is not set.");
        assertThat(refused(Map.of("verification.passkeys.rp-id", "example.com", "verification.passkeys.origins",
                "https://login.example.org"))).hasMessageStartingWith("VERIFICATION_PASSKEYS_ORIGINS is not usable")
                .hasMessageContaining("not on the RP ID example.com");
        assertThat(refused(Map.of("verification.passkeys.rp-id", "example.com", "verification.passkeys.origins",
                "http://login.example.com"))).hasMessageStartingWith("VERIFICATION_PASSKEYS_ORIGINS is not usable")
                .hasMessageContaining("over https");
        assertThat(refused(Map.of("verification.store", "dynamodb", "verification.passkeys.origins",
                "https://login.example.com"))).hasMessageStartingWith("VERIFICATION_PASSKEYS_ORIGINS is set, but "
                + "VERIFICATION_PASSKEYS_RP_ID is not");
        assertThat(refused(Map.of("verification.passkeys.max-per-user", "0")))
                .hasMessageContaining("maxPasskeys must be 1 to 50");
    }

    @Test
    void theSettingsCarryThePolicyAndEveryProblemIsCollectedWithTheOthers() {
        StartupProblems problems = new StartupProblems();
        Optional<VerificationSettings> settings = VerificationAutoConfiguration.settings(bound(Map.of()), problems);
        assertThat(settings.orElseThrow().passkeys()).map(PasskeyPolicy::rpId).contains("localhost");

        VerificationAutoConfiguration.settings(bound(Map.of("verification.passkeys.rp-id", "example.com",
                "verification.limits.send", "lots")), problems);
        assertThat(problems.list()).extracting(Throwable::getMessage).anyMatch(message -> message.startsWith(
                "VERIFICATION_PASSKEYS_RP_ID is example.com")).anyMatch(message -> message.startsWith(
                "VERIFICATION_LIMITS_SEND"));
        assertThatThrownBy(problems::throwIfAny).isInstanceOf(StartupException.class);
    }
}

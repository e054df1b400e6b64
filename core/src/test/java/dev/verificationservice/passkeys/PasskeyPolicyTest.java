package dev.verificationservice.passkeys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The passkey settings are checked when the service is built: a wrong RP ID or origin fails at start. */
class PasskeyPolicyTest {

    @Test
    void originsOnTheRpIdOverHttpsOrLocalHttpAreAccepted() {
        PasskeyPolicy policy = PasskeyPolicy.of("example.com", "Example",
                Set.of("https://example.com", "https://login.example.com:8443"));

        assertThat(policy.challengeLifetime()).isEqualTo(Duration.ofMinutes(5));
        assertThat(policy.maxPasskeys()).isEqualTo(10);
        assertThat(PasskeyPolicy.of("localhost", "Dev", Set.of("http://localhost:8080")).origins())
                .containsExactly("http://localhost:8080");
    }

    @Test
    void anOriginOffTheRpIdOrWithoutTlsOrWithAPathIsRefused() {
        assertThatThrownBy(() -> PasskeyPolicy.of("example.com", "Example", Set.of("https://example.net")))
                .hasMessageContaining("not on the RP ID");
        assertThatThrownBy(() -> PasskeyPolicy.of("example.com", "Example", Set.of("https://badexample.com")))
                .hasMessageContaining("not on the RP ID");
        assertThatThrownBy(() -> PasskeyPolicy.of("example.com", "Example", Set.of("http://example.com")))
                .hasMessageContaining("https");
        assertThatThrownBy(() -> PasskeyPolicy.of("example.com", "Example", Set.of("https://example.com/login")))
                .hasMessageContaining("scheme://host");
        assertThatThrownBy(() -> PasskeyPolicy.of("example.com", "Example", Set.of())).hasMessageContaining("origin");
    }

    @Test
    void anRpIdThatIsNoHostNameAndLimitsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> PasskeyPolicy.of("https://example.com", "Example", Set.of("https://example.com")))
                .hasMessageContaining("RP ID");
        assertThatThrownBy(() -> new PasskeyPolicy("example.com", "Example", Set.of("https://example.com"),
                Duration.ofMinutes(11), 10, false, PasskeyPolicy.DEFAULT_VERIFY_LIMIT))
                .hasMessageContaining("lifetime");
        assertThatThrownBy(() -> new PasskeyPolicy("example.com", "Example", Set.of("https://example.com"),
                Duration.ofMinutes(5), 0, false, PasskeyPolicy.DEFAULT_VERIFY_LIMIT))
                .hasMessageContaining("maxPasskeys");
    }

    @Test
    void passkeysAreOnWhenTheSettingsNameARelyingPartyAndOffOtherwise() {
        Verification.Builder builder = Verification.builder().store(new MemoryVerificationStore())
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))))
                .sender(new DevelopmentOutbox(Clock.systemUTC()));
        assertThat(VerificationSettings.defaults().passkeys()).isEmpty();
        assertThatThrownBy(() -> builder.build().passkeys()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("relying party");

        PasskeyPolicy policy = PasskeyPolicy.of("localhost", "Dev", Set.of("http://localhost:8080"));
        Verification verification = builder.settings(VerificationSettings.builder().passkeys(policy).build()).build();
        assertThat(verification.passkeys().signInOptions(Optional.empty()).rpId()).isEqualTo("localhost");
        assertThat(VerificationSettings.builder().passkeys(policy).build().toBuilder().build().passkeys())
                .contains(policy);
    }
}

package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A code issued for a lifetime of the caller's: shorter than the service's when asked, never longer. */
class CodeLifetimeTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final MemoryVerificationStore store = new MemoryVerificationStore();
    private final VerificationSettings settings = VerificationSettings.defaults();
    private final CodeService codes = Verification.builder().store(store)
            .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))))
            .sender(new DevelopmentOutbox(clock)).clock(clock).settings(settings).build().codes();

    private Instant expiryOf(String userId, Duration lifetime) {
        IssueResult result = codes.issue(CodeRequest.of(userId, CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                userId + "@example.com"), lifetime);
        assertThat(result).isInstanceOf(IssueResult.Issued.class);
        Instant expiresAt = ((IssueResult.Issued) result).expiresAt();
        assertThat(store.codes().findCodes(userId, CodeType.PASSWORD_RESET)).singleElement()
                .satisfies(stored -> assertThat(stored.expiresAt()).isEqualTo(expiresAt));
        return expiresAt;
    }

    @Test
    void aShorterLifetimeIsTheCodesAndALongerOneIsCappedAtTheServices() {
        assertThat(expiryOf("ada", Duration.ofMinutes(5))).isEqualTo(NOW.plus(Duration.ofMinutes(5)));
        assertThat(expiryOf("bob", Duration.ofDays(1))).isEqualTo(NOW.plus(settings.codePolicy().codeTtl()));
    }

    @Test
    void aLifetimeUnderASecondIsRefusedNamingIt() {
        CodeRequest request = CodeRequest.of("cyd", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "cyd@example.com");
        for (Duration lifetime : new Duration[] {Duration.ZERO, Duration.ofMillis(999), Duration.ofSeconds(-5)}) {
            assertThatThrownBy(() -> codes.issue(request, lifetime)).isInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("lifetime");
        }
        assertThat(store.codes().findCodes("cyd", CodeType.PASSWORD_RESET)).as("nothing written").isEmpty();
    }
}

package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.foundation.Foundation;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
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
    private final InMemoryStore store = new InMemoryStore();
    private final SecureTokens tokens = new SecureTokens();
    private final VerificationSettings settings = VerificationSettings.defaults();
    private final CodeService codes = new CodeService(store,
            new CodeDelivery(new DevelopmentOutbox(clock), MessageLocales.requestedOrEnglish()), settings.codePolicy(),
            new Foundation(new RateLimiter(store, clock, tokens), new AuditLog(store, clock, settings.auditRetention(),
                    tokens), SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))),
                    tokens, clock));

    private Instant expiryOf(String userId, Duration lifetime) {
        IssueResult result = codes.issue(CodeRequest.of(userId, CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                userId + "@example.com"), lifetime);
        assertThat(result).isInstanceOf(IssueResult.Issued.class);
        Instant expiresAt = ((IssueResult.Issued) result).expiresAt();
        assertThat(store.findCodes(userId, CodeType.PASSWORD_RESET)).singleElement()
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
        assertThat(store.findCodes("cyd", CodeType.PASSWORD_RESET)).as("nothing written").isEmpty();
    }
}

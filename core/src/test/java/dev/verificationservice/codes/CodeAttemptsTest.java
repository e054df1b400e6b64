package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.VerificationSettings;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.foundation.Foundation;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A code type's counted attempts on a store of separate steps (as DynamoDB): a server fault counts nothing. */
class CodeAttemptsTest {

    private static final String VERIFY = CodeService.verifyAction(CodeType.EMAIL_VERIFICATION);
    private static final String IN_A_ROW = VERIFY + CountedAttempts.CONSECUTIVE_SUFFIX;

    private final Clock clock = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
    private final InMemoryStore store = new InMemoryStore();
    private final SecureTokens tokens = new SecureTokens();
    private final RateLimiter rateLimiter = new RateLimiter(store, clock, tokens);
    private final CodeService codes = new CodeService(store,
            new CodeDelivery(new DevelopmentOutbox(clock), MessageLocales.requestedOrEnglish()),
            VerificationSettings.defaults().codePolicy(), new Foundation(rateLimiter,
            new AuditLog(store, clock, VerificationSettings.defaults().auditRetention(), tokens),
            SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))), tokens, clock));

    @Test
    void aStoreFailureWhileTheCodeIsTestedGivesBackBothPlaces() {
        VerifyRequest guess = VerifyRequest.numeric("123456", "ada", CodeType.EMAIL_VERIFICATION);
        assertThat(codes.check(guess).valid()).isFalse();
        assertThat(store.held(IN_A_ROW)).as("a wrong guess, counted in a row").isOne();
        store.fail("findCode");

        assertThatThrownBy(() -> codes.check(guess)).isInstanceOf(StoreException.class);

        assertThat(store.held(VERIFY)).as("only the wrong guess keeps its window place").isOne();
        assertThat(store.placeRequests(IN_A_ROW)).as("taken before the test, something being counted").isEqualTo(2);
        assertThat(store.held(IN_A_ROW)).as("and given back").isOne();
    }
}

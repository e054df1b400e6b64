package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.TestStore;
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
    private final TestStore store = new TestStore();
    private final CodeService codes = Verification.builder().store(store)
            .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))))
            .sender(new DevelopmentOutbox(clock)).clock(clock).build().codes();

    @Test
    void aStoreFailureWhileTheCodeIsTestedGivesBackBothPlaces() {
        VerifyRequest guess = VerifyRequest.numeric("123456", "ada", CodeType.EMAIL_VERIFICATION);
        assertThat(codes.check(guess).valid()).isFalse();
        assertThat(store.table().held(IN_A_ROW)).as("a wrong guess, counted in a row").isOne();
        store.faults().fail("findCode");

        assertThatThrownBy(() -> codes.check(guess)).isInstanceOf(StoreException.class);

        assertThat(store.table().held(VERIFY)).as("only the wrong guess keeps its window place").isOne();
        assertThat(store.counters().placeRequests(IN_A_ROW)).as("taken before the test, something being counted").isEqualTo(2);
        assertThat(store.table().held(IN_A_ROW)).as("and given back").isOne();
    }
}

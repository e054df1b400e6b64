package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.TestStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * After the store refuses a locked-out user's guess, this instance answers the next guesses from memory for a few
 * seconds: untested, unaudited, with no store call, and counted.
 */
class LockOutMemoryTest {

    private static final CodeType TYPE = CodeType.EMAIL_VERIFICATION;
    private static final String VERIFY = CodeService.verifyAction(TYPE);
    private static final String IN_A_ROW = VERIFY + CountedAttempts.CONSECUTIVE_SUFFIX;

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-02T10:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    private final MovingClock clock = new MovingClock();
    private final TestStore store = new TestStore();
    private final DevelopmentOutbox outbox = new DevelopmentOutbox(clock);
    private final Verification verification = Verification.builder().store(store)
            .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))))
            .sender(outbox).clock(clock).build();

    private String send(String userId) {
        assertThat(verification.codes().issue(CodeRequest.of(userId, TYPE, DeliveryMethod.EMAIL, userId + "@example.com")))
                .isInstanceOf(IssueResult.Issued.class);
        return outbox.messages().stream().filter(message -> message.userId().equals(userId)).findFirst()
                .orElseThrow().code();
    }

    private FailureReason guess(String userId, String code) {
        VerificationResult result = verification.codes().verify(VerifyRequest.numeric(code, userId, TYPE));
        return ((VerificationResult.Invalid) result).reason();
    }

    private long refusalsAudited(String userId) {
        return verification.audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(100), Optional.empty())
                .entries().stream().filter(entry -> "TOO_MANY_ATTEMPTS".equals(entry.failureReason().orElse(null)))
                .count();
    }

    private String lockedOut(String userId) {
        String code = send(userId);
        String wrong = code.equals("000000") ? "111111" : "000000";
        for (int i = 0; i < 5; i++) {
            guess(userId, wrong);
        }
        // The store refuses this one and audits it; refused again a second later, the lock-out lasts: remembered.
        assertThat(guess(userId, wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        clock.advance(Duration.ofSeconds(1));
        assertThat(guess(userId, wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        return wrong;
    }

    @Test
    void guessesAfterARefusalAreAnsweredWithNoStoreCallNoAuditEntryAndCounted() {
        String wrong = lockedOut("ada");
        long audited = refusalsAudited("ada");
        long placesAskedFor = store.counters().placeRequests(VERIFY);
        // Any counter call from here on fails: a refusal from memory must make none.
        store.faults().fail("findCounters");
        store.faults().fail("takePlace:" + VERIFY);
        store.faults().fail("takePlace:" + IN_A_ROW);

        for (int i = 0; i < 100; i++) {
            assertThat(guess("ada", wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        }

        assertThat(verification.attempts().refusedFromMemory()).isEqualTo(100);
        assertThat(refusalsAudited("ada")).isEqualTo(audited);
        assertThat(store.counters().placeRequests(VERIFY)).isEqualTo(placesAskedFor);

        // Five seconds on, the store is asked again (here it fails on purpose: the call was made).
        clock.advance(Duration.ofSeconds(5));
        assertThatThrownBy(() -> guess("ada", wrong)).isInstanceOf(StoreException.class);
    }

    @Test
    void theStoreDecidesAgainEveryFiveSecondsAndAuditsThatRefusal() {
        String wrong = lockedOut("ada");
        long audited = refusalsAudited("ada");
        clock.advance(Duration.ofSeconds(4));
        assertThat(guess("ada", wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(refusalsAudited("ada")).isEqualTo(audited);

        clock.advance(Duration.ofSeconds(1));
        assertThat(guess("ada", wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(refusalsAudited("ada")).isEqualTo(audited + 1);
    }

    @Test
    void aRefusalSeenOnceIsNotRememberedSinceSimultaneousAttemptsMayHaveCausedIt() {
        String code = send("ada");
        String wrong = code.equals("000000") ? "111111" : "000000";
        for (int i = 0; i < 6; i++) {
            guess("ada", wrong);
        }
        long audited = refusalsAudited("ada");

        assertThat(guess("ada", wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);

        assertThat(refusalsAudited("ada")).as("the store answered again, within the second").isEqualTo(audited + 1);
        assertThat(verification.attempts().refusedFromMemory()).isZero();
    }

    @Test
    void anotherUserIsNotRefusedAndALiftIsSeenAtOnce() {
        String wrong = lockedOut("ada");
        assertThat(verification.codes().verify(VerifyRequest.numeric(send("bob"), "bob", TYPE)).valid()).isTrue();

        verification.operator().liftRateLimit("ada", VERIFY, "key-1", ClientContext.none());

        // Tested again at once (the lock-out invalidated ada's code, so there is nothing to match).
        assertThat(guess("ada", wrong)).isEqualTo(FailureReason.NOT_FOUND);
    }

    /**
     * A success of another factor resets the counts in a row, not this factor's window: the lock-out holds, and its
     * memory too, so a flood of guesses there still makes no store call (none into the user's own partitions).
     */
    @Test
    void aSuccessOfAnotherFactorKeepsTheRememberedLockOutOfAWindowItDoesNotLift() {
        String wrong = lockedOut("ada");
        assertThat(verification.codes().issue(CodeRequest.of("ada", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS,
                "+447700100001"))).isInstanceOf(IssueResult.Issued.class);
        String phoneCode = outbox.messages().stream().filter(message -> message.codeType() == CodeType.PHONE_VERIFICATION)
                .findFirst().orElseThrow().code();
        assertThat(verification.codes().verify(VerifyRequest.numeric(phoneCode, "ada", CodeType.PHONE_VERIFICATION))
                .valid()).isTrue();
        long fromMemory = verification.attempts().refusedFromMemory();
        store.faults().fail("takePlace:" + VERIFY);

        for (int i = 0; i < 10; i++) {
            assertThat(guess("ada", wrong)).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        }

        assertThat(verification.attempts().refusedFromMemory()).isEqualTo(fromMemory + 10);
    }

    @Test
    void aLockOutRememberedEndsWithTheLockOut() {
        String wrong = lockedOut("ada");
        // The failures count until they leave both windows a live code spans: 30 minutes from the first.
        clock.advance(Duration.ofMinutes(30));

        String fresh = send("ada");
        assertThat(guess("ada", wrong)).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification.codes().verify(VerifyRequest.numeric(fresh, "ada", TYPE)).valid()).isTrue();
    }
}

package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.VerificationSettings;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.ratelimit.RateLimitDecision;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Verification and lock-out: five wrong guesses per window, counted wherever they happen, given back on success. */
public abstract class LockOutContract extends ContractPart {

    protected LockOutContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void theFailureThatReachesTheLimitInvalidatesCodesAndLocksOutUntilTheWindowEnds() {
        String code = sendEmailCode("alice");
        for (int failure = 1; failure <= 4; failure++) {
            assertThat(reasonOf(verifyEmailCode("alice", wrongCode(code)))).isEqualTo(FailureReason.NOT_FOUND);
        }
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        // The right code no longer helps: it was invalidated.
        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        // No new code of this type while locked out.
        IssueResult refused = verification().codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));
        assertThat(refused).isInstanceOf(IssueResult.RateLimited.class);
        assertThat(((IssueResult.RateLimited) refused).action()).isEqualTo("VERIFY_EMAIL_VERIFICATION");
        // Another user and another type are untouched.
        assertThat(verifyEmailCode("bob", sendEmailCode("bob")).valid()).isTrue();

        // A live code may span two windows, so the failures count until they leave both: the lock-out ends when
        // the window after theirs ends, and not before.
        assertThat(((IssueResult.RateLimited) refused).resetsAt()).isEqualTo(START.plus(Duration.ofMinutes(30)));
        clock().advance(Duration.ofMinutes(15));
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        clock().advance(Duration.ofMinutes(15));
        String fresh = sendEmailCode("alice");
        assertThat(verifyEmailCode("alice", fresh).valid()).isTrue();
    }

    @Test
    void ofSixtySimultaneousWrongGuessesOnlyTheFirstFiveAreTested() throws Exception {
        String code = sendEmailCode("alice");

        List<VerificationResult> results = runConcurrently(60, () -> verifyEmailCode("alice", wrongCode(code)));

        // Places 1-4 are tested and miss; place 5 is tested, misses and starts the lock-out; 6-60 are never tested.
        assertThat(results).extracting(ContractPart::reasonOf)
                .filteredOn(reason -> reason == FailureReason.NOT_FOUND).hasSize(4);
        assertThat(results).extracting(ContractPart::reasonOf)
                .filteredOn(reason -> reason == FailureReason.TOO_MANY_ATTEMPTS).hasSize(56);
    }

    @Test
    void aCorrectCodeIsRefusedWhileTheUserIsLockedOut() {
        String code = sendEmailCode("alice");
        // Five failures counted elsewhere (for example on another instance) while this code survived.
        for (int i = 0; i < 5; i++) {
            verification().rateLimiter().acquire("alice", "VERIFY_EMAIL_VERIFICATION", VerificationSettings.DEFAULT_VERIFY_LIMIT);
        }

        assertThat(reasonOf(verification().codes().check(
                VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
    }

    @Test
    void aSuccessGivesItsAttemptBack() {
        String code = sendEmailCode("alice");
        for (int failure = 1; failure <= 4; failure++) {
            verifyEmailCode("alice", wrongCode(code));
        }
        assertThat(verification().codes().check(VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION)).valid())
                .isTrue();
        assertThat(verifyEmailCode("alice", code).valid()).isTrue();

        assertThat(verification().operator().rateLimits("alice"))
                .filteredOn(limit -> limit.action().equals("VERIFY_EMAIL_VERIFICATION"))
                .extracting(RateLimitDecision::count).containsExactly(4L);
    }

    @Test
    void theRightCodePresentedAgainAfterItsUseIsUsedAndNeverALockOut() {
        String code = sendEmailCode("uma");
        assertThat(verifyEmailCode("uma", code).valid()).isTrue();

        for (int again = 1; again <= 10; again++) {
            assertThat(reasonOf(verifyEmailCode("uma", code))).as("verify again #" + again).isEqualTo(FailureReason.USED);
            assertThat(reasonOf(verification().codes().check(VerifyRequest.numeric(code, "uma",
                    CodeType.EMAIL_VERIFICATION)))).as("check again #" + again).isEqualTo(FailureReason.USED);
        }

        // Not one of them counts as a wrong guess; wrong guesses still do, and lock out at the fifth.
        assertThat(verification().operator().rateLimits("uma")).filteredOn(limit -> limit.action().equals(
                "VERIFY_EMAIL_VERIFICATION")).extracting(RateLimitDecision::count).containsExactly(0L);
        for (int guess = 1; guess <= 4; guess++) {
            assertThat(reasonOf(verifyEmailCode("uma", wrongCode(code)))).isEqualTo(FailureReason.NOT_FOUND);
            assertThat(reasonOf(verifyEmailCode("uma", code))).as("between the guesses").isEqualTo(FailureReason.USED);
        }
        assertThat(reasonOf(verifyEmailCode("uma", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(reasonOf(verifyEmailCode("uma", code))).as("locked out: untested").isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        clock().advance(Duration.ofSeconds(30));
        assertThat(verification().codes().issue(CodeRequest.of("uma", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "uma@example.com"))).isInstanceOf(IssueResult.RateLimited.class);
    }

    @Test
    void ofTwentySimultaneousVerificationsOfTheRightNumericCodeOneIsValidAndNoneLocksOut() throws Exception {
        String code = sendEmailCode("abe");

        List<VerificationResult> results = runConcurrently(20, () -> verifyEmailCode("abe", code));

        assertThat(results).filteredOn(VerificationResult::valid).hasSize(1);
        // The others are USED, or TOO_MANY_ATTEMPTS untested while five places were in flight; none of them stays
        // counted, and the user is not locked out.
        assertThat(results).filteredOn(result -> !result.valid()).extracting(ContractPart::reasonOf)
                .hasSize(19).containsAnyOf(FailureReason.USED).doesNotContain(FailureReason.NOT_FOUND);
        assertThat(verification().operator().rateLimits("abe")).filteredOn(limit -> limit.action().equals(
                "VERIFY_EMAIL_VERIFICATION")).extracting(RateLimitDecision::count).containsExactly(0L);
        clock().advance(Duration.ofSeconds(30));
        assertThat(verifyEmailCode("abe", sendEmailCode("abe")).valid()).isTrue();
    }

    @Test
    void aFailedCheckCountsLikeAFailedVerification() {
        String code = sendEmailCode("alice");
        VerifyRequest wrong = VerifyRequest.numeric(wrongCode(code), "alice", CodeType.EMAIL_VERIFICATION);
        for (int failure = 1; failure <= 4; failure++) {
            verification().codes().check(wrong);
        }
        assertThat(reasonOf(verification().codes().check(wrong))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
    }

    @Test
    void aNewCodeDoesNotResetTheFailureCount() {
        String code = sendEmailCode("alice");
        for (int failure = 1; failure <= 3; failure++) {
            verifyEmailCode("alice", wrongCode(code));
        }
        clock().advance(Duration.ofSeconds(30));
        String next = sendEmailCode("alice");
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(next)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(next)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
    }

    @Test
    void noCodeHasMoreThanFiveWrongGuessesTestedHoweverTheWindowsFall() {
        clock().set(START.plus(Duration.ofMinutes(14)));
        String code = sendEmailCode("wyn");
        clock().set(START.plus(Duration.ofMinutes(14)).plusSeconds(31));
        for (int guess = 1; guess <= 4; guess++) {
            assertThat(reasonOf(verifyEmailCode("wyn", wrongCode(code)))).isEqualTo(FailureReason.NOT_FOUND);
        }
        // The next window has begun; the code, fourteen and a half minutes from expiry, has had four guesses.
        clock().set(START.plus(Duration.ofMinutes(15)).plusSeconds(3));
        assertThat(reasonOf(verifyEmailCode("wyn", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        for (int guess = 6; guess <= 9; guess++) {
            assertThat(reasonOf(verifyEmailCode("wyn", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        }
        assertThat(reasonOf(verifyEmailCode("wyn", code))).as("the right code is not tested either")
                .isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        // Four in the first window, one in the second: the untested attempts took no place.
        assertThat(verification().rateLimiter().current("wyn", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(1);
    }

    @Test
    void aLockOutOfNumericGuessingNeverStopsAPasswordResetLink() {
        IssueResult link = verification().codes().issue(CodeRequest.of("zed", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "zed@example.com"));
        assertThat(link).isInstanceOf(IssueResult.Issued.class);
        String linkCode = latestCode();
        for (int guess = 1; guess <= 5; guess++) {
            verification().codes().verify(VerifyRequest.numeric("000000", "zed", CodeType.PASSWORD_RESET));
        }
        assertThat(reasonOf(verification().codes().verify(VerifyRequest.numeric("000000", "zed", CodeType.PASSWORD_RESET))))
                .isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);

        // The lock-out deleted no link, and a new link is still issued; a new NUMERIC reset code is not.
        assertThat(verification().codes().check(VerifyRequest.link(linkCode)).valid()).isTrue();
        clock().advance(Duration.ofSeconds(30));
        assertThat(verification().codes().issue(CodeRequest.of("zed", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "zed@example.com").withFormat(CodeFormat.NUMERIC))).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("VERIFY_PASSWORD_RESET"));
        assertThat(verification().codes().issue(CodeRequest.of("zed", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "zed@example.com"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(verification().codes().verify(VerifyRequest.link(latestCode())).valid()).isTrue();
    }
}

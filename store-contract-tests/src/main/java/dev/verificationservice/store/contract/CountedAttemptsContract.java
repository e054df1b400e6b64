package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.recovery.RecoveryVerification;
import dev.verificationservice.totp.Confirmation;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpVerification;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.Test;

/**
 * Counted attempts of every factor (codes, authenticator apps, recovery codes) on the store: a window's lock-out
 * ends with its window; a hundred wrong answers in a row close a factor, across a window's boundary too, until a
 * success of another factor or a remembered device; exactly so under concurrency; only a wrong guess counts; each
 * lock-out is listed where support looks, and each can be lifted.
 */
public abstract class CountedAttemptsContract extends ContractPart {

    private static final ClientContext NONE = ClientContext.none();
    private static final int IN_A_ROW = CountedAttempts.DEFAULT_CONSECUTIVE_LIMIT.limit();

    protected CountedAttemptsContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void theOverviewListsTheAuthenticatorAndRecoveryLockOutsAndEachIsLifted() {
        Enrolment enrolment = confirmedTotp("tia").enrolment();
        clock().advance(Duration.ofSeconds(30));
        for (int guess = 1; guess <= 5; guess++) {
            verification().totp().verify("tia", wrongTotp(enrolment), NONE);
            verification().recovery().verify("tia", "abcde-fghjk", NONE);
        }

        List<RateLimitDecision> listed = verification().operator().overview("tia").rateLimits();

        assertThat(listed).filteredOn(limit -> limit.action().equals("VERIFY_TOTP")).singleElement()
                .satisfies(limit -> assertThat(limit.limitReached()).isTrue());
        assertThat(listed).filteredOn(limit -> limit.action().equals("VERIFY_RECOVERY")).singleElement()
                .satisfies(limit -> assertThat(limit.count()).isEqualTo(5));
        assertThat(verification().operator().rateLimits("tia")).isEqualTo(listed);
        assertThat(verification().totp().verify("tia", totpNow(enrolment), NONE))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));

        verification().operator().liftRateLimit("tia", "VERIFY_TOTP", "key-1", NONE);

        assertThat(verification().totp().verify("tia", totpNow(enrolment), NONE).valid()).isTrue();
        assertThat(verification().recovery().verify("tia", "abcde-fghjk", NONE)).as("another factor stays locked")
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.TOO_MANY_ATTEMPTS, 10));
    }

    @Test
    void aLockOutOfTheWindowEndsWithTheWindowForAuthenticatorAndRecoveryCodes() {
        Factors factors = confirmedTotp("win");
        clock().advance(Duration.ofSeconds(30));
        for (int guess = 1; guess <= 5; guess++) {
            verification().totp().verify("win", wrongTotp(factors.enrolment()), NONE);
            verification().recovery().verify("win", "abcde-fghjk", NONE);
        }
        assertThat(verification().totp().verify("win", totpNow(factors.enrolment()), NONE))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        assertThat(verification().recovery().verify("win", factors.recoveryCodes().get(0), NONE))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.TOO_MANY_ATTEMPTS, 10));

        clock().set(START.plus(Duration.ofMinutes(15)));

        assertThat(verification().totp().verify("win", totpNow(factors.enrolment()), NONE).valid()).isTrue();
        assertThat(verification().recovery().verify("win", factors.recoveryCodes().get(0), NONE).valid()).isTrue();
    }

    /**
     * NIST SP 800-63B-4's bound: a hundred wrong codes in a row (twenty windows of five, five hours) close the factor
     * past its window, until a success of another factor of the user.
     */
    @Test
    void theHundredthWrongCodeInARowClosesTheFactorUntilARecoveryCodeSucceeds() {
        Factors factors = confirmedTotp("hun");
        TotpVerification last = null;
        for (int wrong = 0; wrong < IN_A_ROW; ) {
            clock().advance(Duration.ofMinutes(15));
            for (int guess = 0; guess < 5 && wrong < IN_A_ROW; guess++, wrong++) {
                last = verification().totp().verify("hun", wrongTotp(factors.enrolment()), NONE);
            }
        }
        assertThat(last).isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        clock().advance(Duration.ofHours(6));

        assertThat(verification().totp().verify("hun", totpNow(factors.enrolment()), NONE))
                .as("a fresh window, but a hundred wrong codes in a row: not tested")
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        assertThat(state("hun", "VERIFY_TOTP_CONSECUTIVE")).satisfies(limit -> {
            assertThat(limit.count()).isEqualTo(IN_A_ROW);
            assertThat(limit.limitReached()).isTrue();
        });
        assertThat(state("hun", "VERIFY_TOTP").count()).as("the refused attempt holds no place").isZero();
        assertThat(verification().recovery().verify("hun", factors.recoveryCodes().get(0), NONE).valid()).isTrue();

        assertThat(state("hun", "VERIFY_TOTP_CONSECUTIVE").count()).isZero();
        assertThat(verification().totp().verify("hun", totpNow(factors.enrolment()), NONE).valid()).isTrue();
    }

    @Test
    void aRememberedDeviceReopensAFactorClosedInARowAndSoDoesACodeVerification() {
        Factors factors = confirmedTotp("dev");
        RegisteredDevice device = registerDevice("dev", "laptop-dev");
        countedInARow("dev", "VERIFY_RECOVERY_CONSECUTIVE", IN_A_ROW);
        assertThat(verification().recovery().verify("dev", factors.recoveryCodes().get(0), NONE))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.TOO_MANY_ATTEMPTS, 10));

        assertThat(verification().devices().verify("laptop-dev", device.secret(), NONE).valid()).isTrue();

        assertThat(verification().recovery().verify("dev", factors.recoveryCodes().get(0), NONE).valid()).isTrue();
        clock().advance(Duration.ofSeconds(30));
        countedInARow("dev", "VERIFY_TOTP_CONSECUTIVE", IN_A_ROW);
        String code = sendEmailCode("dev");
        assertThat(verifyEmailCode("dev", code).valid()).isTrue();
        assertThat(verification().totp().verify("dev", totpNow(factors.enrolment()), NONE).valid()).isTrue();
    }

    /** A code type is a factor like the others: closed in a row, it refuses its codes and sends no NUMERIC one. */
    @Test
    void aCodeTypeClosedInARowRefusesItsCodeAndANewOneUntilAnotherFactorSucceeds() {
        Factors factors = confirmedTotp("cat");
        String code = sendEmailCode("cat");
        countedInARow("cat", "VERIFY_EMAIL_VERIFICATION_CONSECUTIVE", IN_A_ROW);

        assertThat(reasonOf(verifyEmailCode("cat", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        clock().advance(Duration.ofSeconds(30));
        assertThat(verification().codes().issue(CodeRequest.of("cat", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "cat@example.com"))).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("VERIFY_EMAIL_VERIFICATION_CONSECUTIVE"));
        assertThat(verification().totp().verify("cat", totpNow(factors.enrolment()), NONE).valid()).isTrue();

        assertThat(verifyEmailCode("cat", sendEmailCode("cat")).valid()).isTrue();
    }

    /** A run of wrong answers does not start over at a window's boundary: the window before still counts. */
    @Test
    void theWrongAnswersInARowOfTheWindowBeforeStillCount() {
        Factors factors = confirmedTotp("edge");
        countedInARow("edge", "VERIFY_TOTP_CONSECUTIVE", IN_A_ROW - 1);
        Duration window = CountedAttempts.DEFAULT_CONSECUTIVE_LIMIT.window();
        clock().set(RateLimiter.windowStart(clock().instant(), window).plus(window).plus(Duration.ofHours(2)));

        assertThat(verification().totp().verify("edge", wrongTotp(factors.enrolment()), NONE))
                .as("the hundredth, in the next window").isEqualTo(new TotpVerification.Invalid(
                        TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        assertThat(verification().totp().verify("edge", totpNow(factors.enrolment()), NONE))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));

        // Once the 99 are more than a whole window old, only the hundredth still counts.
        clock().advance(window);
        assertThat(state("edge", "VERIFY_TOTP_CONSECUTIVE").count()).isOne();
        assertThat(verification().totp().verify("edge", totpNow(factors.enrolment()), NONE).valid()).isTrue();
    }

    /** A valid check gives its place back but uses nothing up, so it resets nothing; the verification does. */
    @Test
    void aValidCheckResetsNoCountInARowAndItsVerificationDoes() {
        confirmedTotp("chk");
        String code = sendEmailCode("chk");
        countedInARow("chk", "VERIFY_TOTP_CONSECUTIVE", 3);

        assertThat(verification().codes().check(VerifyRequest.numeric(code, "chk", CodeType.EMAIL_VERIFICATION))
                .valid()).isTrue();
        assertThat(state("chk", "VERIFY_TOTP_CONSECUTIVE").count()).isEqualTo(3);
        assertThat(state("chk", "VERIFY_EMAIL_VERIFICATION").count()).isZero();
        assertThat(verifyEmailCode("chk", code).valid()).isTrue();

        assertThat(state("chk", "VERIFY_TOTP_CONSECUTIVE").count()).isZero();
    }

    /** Counted before the test there too: of twenty simultaneous wrong codes at 98 in a row, two are tested. */
    @Test
    void ofTwentySimultaneousWrongCodesAtNinetyEightInARowTwoAreTested() throws Exception {
        Factors factors = confirmedTotp("par");
        clock().advance(Duration.ofSeconds(30));
        countedInARow("par", "VERIFY_TOTP_CONSECUTIVE", IN_A_ROW - 2);
        String wrong = wrongTotp(factors.enrolment());

        List<TotpVerification> answers = runConcurrently(20, () -> verification().totp().verify("par", wrong, NONE));

        assertThat(answers).filteredOn(answer -> answer.equals(new TotpVerification.Invalid(
                TotpVerification.Reason.INVALID_CODE))).as("the 99th; the 100th closes").hasSize(1);
        assertThat(answers).filteredOn(answer -> answer.equals(new TotpVerification.Invalid(
                TotpVerification.Reason.TOO_MANY_ATTEMPTS))).hasSize(19);
        assertThat(state("par", "VERIFY_TOTP_CONSECUTIVE").count()).isEqualTo(IN_A_ROW);
        assertThat(state("par", "VERIFY_TOTP").count()).as("only the two tested keep a window place").isEqualTo(2);
    }

    @Test
    void aReplayAUsedCodeAndNoFactorCountNothingInARow() {
        Factors factors = confirmedTotp("nil");
        assertThat(verification().totp().verify("nil", totpNow(factors.enrolment()), NONE))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED));
        assertThat(verification().recovery().verify("nil", factors.recoveryCodes().get(0), NONE).valid()).isTrue();
        assertThat(verification().recovery().verify("nil", factors.recoveryCodes().get(0), NONE))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.USED, 9));
        assertThat(verification().totp().verify("none", "123456", NONE))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.NO_FACTOR));

        assertThat(verification().operator().rateLimits("nil")).filteredOn(limit -> limit.action().startsWith("VERIFY_"))
                .extracting(RateLimitDecision::count).containsOnly(0L);
        assertThat(verification().operator().rateLimits("none")).extracting(RateLimitDecision::count).containsOnly(0L);
    }

    // Helpers

    /** A confirmed authenticator factor and the recovery codes its confirmation issued. */
    private record Factors(Enrolment enrolment, List<String> recoveryCodes) {
    }

    private Factors confirmedTotp(String userId) {
        Enrolment enrolment = verification().totp().enrol(userId, Optional.empty(), Optional.empty(), NONE);
        Confirmation confirmation = verification().totp().confirm(userId, enrolment.factorId(), totpNow(enrolment), NONE);
        assertThat(confirmation).isInstanceOf(Confirmation.Confirmed.class);
        return new Factors(enrolment, ((Confirmation.Confirmed) confirmation).recoveryCodes().orElseThrow().codes());
    }

    /** Wrong answers in a row counted elsewhere (another instance, earlier in the window). */
    private void countedInARow(String userId, String action, int wrong) {
        for (int i = 0; i < wrong; i++) {
            verification().rateLimiter().acquireOverWindows(userId, action, CountedAttempts.DEFAULT_CONSECUTIVE_LIMIT, 1);
        }
    }

    private RateLimitDecision state(String userId, String action) {
        return verification().operator().rateLimits(userId).stream().filter(limit -> limit.action().equals(action))
                .findFirst().orElseThrow();
    }

    /** What the app shows now. */
    private String totpNow(Enrolment enrolment) {
        return Totp.code(new Base32().decode(enrolment.secret()), Totp.step(clock().instant(), Totp.DEFAULT_PERIOD),
                TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS);
    }

    /** A code no step of the factor around now shows. */
    private String wrongTotp(Enrolment enrolment) {
        byte[] secret = new Base32().decode(enrolment.secret());
        long step = Totp.step(clock().instant(), Totp.DEFAULT_PERIOD);
        for (int candidate = 0; ; candidate++) {
            String code = String.format("%06d", candidate);
            boolean shown = false;
            for (long at = step - 1; at <= step + 1; at++) {
                shown |= Totp.code(secret, at, TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS).equals(code);
            }
            if (!shown) {
                return code;
            }
        }
    }
}

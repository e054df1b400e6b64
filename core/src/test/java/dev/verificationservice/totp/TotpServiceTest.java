package dev.verificationservice.totp;

import dev.verificationservice.Concurrently;
import dev.verificationservice.Verification;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.recovery.RecoveryCodeIssue;
import dev.verificationservice.recovery.RecoveryCodeService;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.security.UnreadableSecretException;
import dev.verificationservice.store.TestStore;
import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The TOTP rules against the core's in-memory store; an {@link Authenticator} written from the RFCs plays the app,
 * enrolling by the otpauth URI read from the QR code. Time is a fixed clock per call, never a sleep.
 */
class TotpServiceTest {

    /** 10 s into a time step. */
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:10Z");
    private static final String USER = "ada";
    private static final ClientContext CLIENT = ClientContext.none();
    private static final String CONSECUTIVE = TotpService.VERIFY_ACTION + CountedAttempts.CONSECUTIVE_SUFFIX;

    private final SecureRandom random = new SecureRandom();
    private final TestStore store = new TestStore();
    private final SecretKeyRing keys = SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(random)));
    private final String encryptionKey = EncryptionKeyRing.generateBase64Key(random);
    private final EncryptionKeyRing encryption = EncryptionKeyRing.fromBase64(List.of(encryptionKey));

    private TotpService service(Instant now) {
        return service(now, encryption);
    }

    private TotpService service(Instant now, EncryptionKeyRing ring) {
        return services(now, ring).totp();
    }

    /** Both factors of one {@code Verification}, so that a success of either resets the wrong answers in a row of both. */
    private record Services(TotpService totp, RecoveryCodeService recovery, RateLimiter rateLimiter) {
    }

    private Services services(Instant now) {
        return services(now, encryption);
    }

    private Services services(Instant now, EncryptionKeyRing ring) {
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        Verification verification = Verification.builder().store(store).keys(keys)
                .sender(new DevelopmentOutbox(clock)).clock(clock).encryption(ring).build();
        return new Services(verification.totp(), verification.recovery(), verification.rateLimiter());
    }

    /** Wrong answers in a row counted elsewhere (another instance, another day of this window). */
    private void countInARow(String user, Instant at, int wrong) {
        RateLimiter rateLimiter = services(at).rateLimiter();
        for (int i = 0; i < wrong; i++) {
            rateLimiter.acquireOverWindows(user, CONSECUTIVE, CountedAttempts.DEFAULT_CONSECUTIVE_LIMIT, 1);
        }
    }

    /** Enrols as an app would (scanning the QR code) and confirms at NOW. */
    private Authenticator enrolAndConfirm(String user) throws Exception {
        Enrolment enrolment = service(NOW).enrol(user, Optional.empty(), Optional.empty(), CLIENT);
        Authenticator app = Authenticator.scan(QrScanner.scan(enrolment.qrCode()));
        assertThat(service(NOW).confirm(user, enrolment.factorId(), app.codeAt(NOW), CLIENT).confirmed()).isTrue();
        return app;
    }

    private List<AuditEntry> audit(AuditEventType type) {
        return store.table().auditEntries().stream().filter(entry -> entry.eventType() == type).toList();
    }

    @Test
    void anAppEnrolsByTheQrCodeConfirmsAndVerifies() throws Exception {
        Enrolment enrolment = service(NOW).enrol(USER, Optional.of("ada@example.com"), Optional.of("Acme Corp"),
                CLIENT);

        assertThat(enrolment.otpauthUri()).isEqualTo("otpauth://totp/Acme%20Corp:ada%40example.com?secret="
                + enrolment.secret() + "&issuer=Acme%20Corp&algorithm=SHA1&digits=6&period=30");
        assertThat(enrolment.secret()).matches("[A-Z2-7]{32}");
        assertThat(enrolment.expiresAt()).isEqualTo(Instant.parse("2026-12-01T10:15:10Z"));
        assertThat(QrScanner.scan(enrolment.qrCode())).isEqualTo(enrolment.otpauthUri());
        Authenticator app = Authenticator.scan(QrScanner.scan(enrolment.qrCode()));

        Confirmation confirmation = service(NOW).confirm(USER, enrolment.factorId(), app.codeAt(NOW), CLIENT);

        assertThat(confirmation).isInstanceOfSatisfying(Confirmation.Confirmed.class, confirmed -> {
            assertThat(confirmed.factorId()).isEqualTo(enrolment.factorId());
            assertThat(confirmed.recoveryCodes().orElseThrow().codes()).hasSize(10).doesNotHaveDuplicates()
                    .allMatch(code -> code.matches("[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}"));
        });
        Instant later = NOW.plusSeconds(30);
        assertThat(service(later).verify(USER, app.codeAt(later), CLIENT))
                .isEqualTo(new TotpVerification.Valid(enrolment.factorId()));
        assertThat(audit(AuditEventType.TOTP_ENROLLED)).hasSize(1);
        assertThat(audit(AuditEventType.TOTP_CONFIRMED)).hasSize(1);
        assertThat(audit(AuditEventType.RECOVERY_CODES_ISSUED)).hasSize(1);
        assertThat(audit(AuditEventType.TOTP_VERIFIED)).singleElement()
                .satisfies(entry -> assertThat(entry.details()).containsEntry("factorId", enrolment.factorId()));
        assertThat(service(later).list(USER)).singleElement().satisfies(factor -> {
            assertThat(factor.label()).isEqualTo("ada@example.com");
            assertThat(factor.confirmed()).isTrue();
            assertThat(factor.lastUsedAt()).contains(later);
        });
    }

    @Test
    void theConfirmingCodeCannotVerifyAgain() throws Exception {
        Authenticator app = enrolAndConfirm(USER);

        assertThat(service(NOW).verify(USER, app.codeAt(NOW), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED));
    }

    @Test
    void aPendingFactorVerifiesNothingAndLapsesAfterFifteenMinutes() throws Exception {
        Enrolment enrolment = service(NOW).enrol(USER, Optional.empty(), Optional.empty(), CLIENT);
        Authenticator app = Authenticator.scan(enrolment.otpauthUri());

        assertThat(service(NOW).verify(USER, app.codeAt(NOW), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.NO_FACTOR));
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).as("nothing was tested, nothing counts").isZero();
        Instant lapsed = NOW.plus(Duration.ofMinutes(15));
        assertThat(service(lapsed).confirm(USER, enrolment.factorId(), app.codeAt(lapsed), CLIENT))
                .isEqualTo(new Confirmation.NotConfirmed(Confirmation.Reason.NOT_FOUND));
        assertThat(service(lapsed).list(USER)).isEmpty();
        Instant justBefore = lapsed.minusSeconds(1);
        assertThat(service(justBefore).list(USER)).singleElement()
                .satisfies(factor -> assertThat(factor.confirmed()).isFalse());
    }

    @Test
    void oneStepEitherSideIsAcceptedTwoAreRefused() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        // Each case at its own time, far enough apart that no earlier acceptance makes it a replay.
        Instant first = NOW.plus(Duration.ofMinutes(10));
        Instant second = NOW.plus(Duration.ofMinutes(20));
        Instant third = NOW.plus(Duration.ofMinutes(30));
        Instant fourth = NOW.plus(Duration.ofMinutes(40));

        assertThat(service(first).verify(USER, app.codeAt(first.minusSeconds(30)), CLIENT).valid()).isTrue();
        assertThat(service(second).verify(USER, app.codeAt(second.plusSeconds(30)), CLIENT).valid()).isTrue();
        assertThat(service(third).verify(USER, app.codeAt(third.minusSeconds(60)), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.INVALID_CODE));
        assertThat(service(fourth).verify(USER, app.codeAt(fourth.plusSeconds(60)), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.INVALID_CODE));
    }

    @Test
    void theSameCodeTwiceOrAnOlderStepAfterANewerOneIsReplayedAndNoWrongGuess() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        TotpService service = service(later);

        assertThat(service.verify(USER, app.codeAt(later), CLIENT).valid()).isTrue();
        assertThat(service.verify(USER, app.codeAt(later), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED));
        assertThat(service.verify(USER, app.codeAt(later.minusSeconds(30)), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED));
        // The next step is still good.
        assertThat(service.verify(USER, app.codeAt(later.plusSeconds(30)), CLIENT).valid()).isTrue();
        // Neither the replays nor the successes stay counted.
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isZero();
        assertThat(audit(AuditEventType.TOTP_VERIFICATION_FAILED)).extracting(entry -> entry.failureReason().orElseThrow())
                .containsExactly("REPLAYED", "REPLAYED");
    }

    @Test
    void fiftyParallelSubmissionsOfOneValidCodeAreValidExactlyOnce() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        TotpService service = service(later);
        String code = app.codeAt(later);

        List<TotpVerification> answers = Concurrently.run(50, () -> service.verify(USER, code, CLIENT));

        assertThat(answers).filteredOn(TotpVerification::valid).hasSize(1);
        // A submission counts before it is tested, so those that arrive while the limit's places are all held by
        // submissions still in flight are refused; how many depends on how the threads overlap, never on a guess.
        assertThat(answers).filteredOn(answer -> !answer.valid()).hasSize(49)
                .containsAnyOf(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED))
                .isSubsetOf(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED),
                        new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        assertThat(audit(AuditEventType.TOTP_VERIFIED)).hasSize(1);
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isZero();
        // None of them was a wrong guess: nothing stays counted and the next step's code is valid.
        assertThat(service.verify(USER, app.codeAt(later.plusSeconds(30)), CLIENT).valid()).isTrue();
    }

    @Test
    void wrongCodesLockOutAfterTheLimitAndThenEvenTheRightCodeIsNotTested() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        TotpService service = service(later);
        String right = app.codeAt(later);
        String wrong = right.equals("000000") ? "111111" : "000000";

        List<TotpVerification.Reason> reasons = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            reasons.add(((TotpVerification.Invalid) service.verify(USER, wrong, CLIENT)).reason());
        }

        assertThat(reasons).containsExactly(TotpVerification.Reason.INVALID_CODE, TotpVerification.Reason.INVALID_CODE,
                TotpVerification.Reason.INVALID_CODE, TotpVerification.Reason.INVALID_CODE,
                TotpVerification.Reason.TOO_MANY_ATTEMPTS);
        assertThat(service.verify(USER, right, CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
    }

    /**
     * The finding: four bursts of 5 wrong codes, one in each of four 15-minute windows (20 requests), left the right
     * code refused until UTC midnight. A window's lock-out now ends with its window. On the injected clock.
     */
    @Test
    void fourBurstsOfWrongCodesAcrossWindowsLeaveTheRightCodeWorkingInTheNextWindow() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        int perWindow = TotpPolicy.defaults().verifyLimit().limit();
        Instant at = NOW;
        for (int burst = 1; burst <= 4; burst++) {
            at = at.plus(Duration.ofMinutes(15));
            for (int attempt = 0; attempt < perWindow; attempt++) {
                assertThat(service(at).verify(USER, wrongFor(app.codeAt(at)), CLIENT).valid()).isFalse();
            }
            assertThat(service(at).verify(USER, app.codeAt(at), CLIENT)).as("burst %d: the rest of its window", burst)
                    .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        }
        Instant nextWindow = at.plus(Duration.ofMinutes(15));

        assertThat(service(nextWindow).verify(USER, app.codeAt(nextWindow), CLIENT).valid())
                .as("the window after the fourth burst, the same day").isTrue();
    }

    /**
     * NIST SP 800-63B-4's bound: the hundredth wrong code in a row (twenty windows of five) closes the factor past
     * its window, untested, until a success of another factor of the user; a recovery code is one.
     */
    @Test
    void theHundredthWrongCodeInARowClosesTheFactorUntilARecoveryCodeSucceeds() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        List<String> recoveryCodes = ((RecoveryCodeIssue.Issued) service(NOW).regenerateRecoveryCodes(USER, CLIENT).orElseThrow())
                .codes().codes();
        int inARow = CountedAttempts.DEFAULT_CONSECUTIVE_LIMIT.limit();
        int perWindow = TotpPolicy.defaults().verifyLimit().limit();
        Instant at = NOW;
        TotpVerification last = null;
        for (int wrong = 0; wrong < inARow; ) {
            at = at.plus(Duration.ofMinutes(15));
            for (int attempt = 0; attempt < perWindow && wrong < inARow; attempt++, wrong++) {
                last = service(at).verify(USER, wrongFor(app.codeAt(at)), CLIENT);
            }
        }
        assertThat(store.table().held(CONSECUTIVE)).isEqualTo(inARow);
        assertThat(last).as("the hundredth").isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        Instant later = at.plus(Duration.ofHours(6));

        assertThat(service(later).verify(USER, app.codeAt(later), CLIENT))
                .as("a fresh window, but a hundred wrong codes in a row: not tested")
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS));
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).as("the refusal holds no window place").isEqualTo(perWindow * 20L);
        Services services = services(later);
        assertThat(services.recovery().verify(USER, recoveryCodes.get(0), CLIENT).valid()).isTrue();

        assertThat(store.table().held(CONSECUTIVE)).as("reset by the recovery code").isZero();
        assertThat(services.totp().verify(USER, app.codeAt(later), CLIENT).valid()).isTrue();
    }

    /** Counted before the test there too: of twenty simultaneous wrong codes at 98 in a row, two are tested. */
    @Test
    void ofTwentySimultaneousWrongCodesJustBelowTheBoundInARowOnlyTheLastPlacesAreTested() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        countInARow(USER, later, 98);
        TotpService service = service(later);
        String wrong = wrongFor(app.codeAt(later));

        List<TotpVerification> answers = Concurrently.run(20, () -> service.verify(USER, wrong, CLIENT));

        // The 99th is tested and wrong, the 100th is tested and closes the factor; the others are never tested.
        assertThat(answers).extracting(answer -> ((TotpVerification.Invalid) answer).reason())
                .filteredOn(reason -> reason == TotpVerification.Reason.INVALID_CODE).hasSize(1);
        assertThat(store.table().held(CONSECUTIVE)).isEqualTo(100);
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).as("only the two tested keep a window place").isEqualTo(2);
    }

    /** A right code is no wrong guess and resets nothing it need not: no write beyond the window place's. */
    @Test
    void aRightCodeWithNothingCountedInARowWritesNothingMore() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plusSeconds(30);

        assertThat(service(later).verify(USER, app.codeAt(later), CLIENT).valid()).isTrue();

        assertThat(store.counters().placeRequests(CONSECUTIVE)).isZero();
        assertThat(store.counters().counterDeletions()).isEmpty();
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isZero();
    }

    /** A wrong code counts in a row; the right one afterwards resets it, and a replay or no factor counts nothing. */
    @Test
    void onlyAWrongCodeCountsInARowAndTheRightOneResetsIt() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        TotpService service = service(later);

        assertThat(service.verify(USER, wrongFor(app.codeAt(later)), CLIENT).valid()).isFalse();
        assertThat(store.table().held(CONSECUTIVE)).isOne();
        assertThat(service.verify(USER, app.codeAt(later), CLIENT).valid()).isTrue();
        assertThat(store.table().held(CONSECUTIVE)).isZero();
        assertThat(service.verify(USER, app.codeAt(later), CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED));
        assertThat(service.verify("nobody", "123456", CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.NO_FACTOR));

        assertThat(store.table().held(CONSECUTIVE)).isZero();
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).as("the wrong code's window place").isOne();
    }

    /** A server fault counts nothing, also when the attempt took its place in a row before the test. */
    @Test
    void aServerFaultGivesBackThePlaceInARowToo() throws Exception {
        enrolAndConfirm(USER);
        copySecretToMallory();
        countInARow("mallory", NOW, 3);

        assertThatThrownBy(() -> service(NOW).verify("mallory", "123456", CLIENT))
                .isInstanceOf(UnreadableSecretException.class);

        assertThat(store.counters().placeRequests(CONSECUTIVE)).as("its place in a row was taken before the test").isEqualTo(4);
        assertThat(store.table().held(CONSECUTIVE)).as("and given back").isEqualTo(3);
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isZero();
    }

    /** Another user's item, holding the first factor's sealed secret (a copy within the table); the original. */
    private TotpFactor copySecretToMallory() {
        TotpFactor original = store.table().factors().get(0);
        AuditEntry enrolled = new AuditLog(store.audit(), Clock.fixed(NOW, ZoneOffset.UTC), Optional.empty(),
                new SecureTokens(random)).newEntry("mallory", AuditEventType.TOTP_ENROLLED, true, Optional.empty(),
                Map.of(), CLIENT);
        store.totp().insertFactor(new TotpFactor("mallory", original.factorId(), "mallory", original.issuer(),
                original.algorithm(), original.digits(), original.period(), original.secret(), true,
                original.createdAt(), Optional.empty(), TotpFactor.NO_STEP, Optional.empty()),
                enrolled, TotpService.MAX_FACTORS);
        return original;
    }

    private static String wrongFor(String right) {
        return right.equals("000000") ? "111111" : "000000";
    }

    @Test
    void fiftyParallelWrongCodesTestAtMostTheLimit() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        TotpService service = service(later);
        String wrong = app.codeAt(later).equals("000000") ? "111111" : "000000";

        List<TotpVerification> answers = Concurrently.run(50, () -> service.verify(USER, wrong, CLIENT));

        assertThat(answers).extracting(answer -> ((TotpVerification.Invalid) answer).reason())
                .containsOnly(TotpVerification.Reason.INVALID_CODE, TotpVerification.Reason.TOO_MANY_ATTEMPTS)
                .filteredOn(reason -> reason == TotpVerification.Reason.INVALID_CODE).hasSize(4);
        // Only the places within the limit were ever granted: at most 5 guesses were tested.
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isEqualTo(5);
        // Each guess asked the store for a place (and the confirm one), except those refused from memory of a
        // lock-out the store had refused moments before.
        assertThat(store.counters().placeRequests(TotpService.VERIFY_ACTION)).isBetween(5L + 1 + 1, 50L + 1);
    }

    @Test
    void withSeveralFactorsOneCodeIsTestedAgainstEachAndCountsOnce() throws Exception {
        Authenticator phone = enrolAndConfirm(USER);
        String phoneFactor = service(NOW).list(USER).get(0).factorId();
        Authenticator tablet = enrolAndConfirm(USER);
        Instant later = NOW.plus(Duration.ofMinutes(5));
        TotpService service = service(later);
        String tabletFactor = service.list(USER).stream().map(FactorSummary::factorId)
                .filter(id -> !id.equals(phoneFactor)).findFirst().orElseThrow();
        String wrong = "000000".equals(phone.codeAt(later)) || "000000".equals(tablet.codeAt(later)) ? "111111"
                : "000000";

        assertThat(service.verify(USER, wrong, CLIENT).valid()).isFalse();
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isOne();
        assertThat(service.verify(USER, tablet.codeAt(later), CLIENT))
                .isEqualTo(new TotpVerification.Valid(tabletFactor));
        // The phone's own step is untouched by the tablet's acceptance.
        assertThat(service.verify(USER, phone.codeAt(later), CLIENT).valid()).isTrue();
    }

    @Test
    void aSecretSealedUnderAnOldKeyIsReSealedUnderTheCurrentOneOnUse() throws Exception {
        Authenticator app = enrolAndConfirm(USER);
        String newKey = EncryptionKeyRing.generateBase64Key(random);
        EncryptionKeyRing rotated = EncryptionKeyRing.fromBase64(List.of(newKey, encryptionKey));
        Instant later = NOW.plus(Duration.ofMinutes(5));

        assertThat(rotated.isCurrent(store.table().factors().get(0).secret())).isFalse();
        assertThat(service(later, rotated).verify(USER, app.codeAt(later), CLIENT).valid()).isTrue();

        assertThat(rotated.isCurrent(store.table().factors().get(0).secret())).isTrue();
        // The old key can now be retired.
        Instant afterwards = later.plusSeconds(30);
        EncryptionKeyRing retired = EncryptionKeyRing.fromBase64(List.of(newKey));
        assertThat(service(afterwards, retired).verify(USER, app.codeAt(afterwards), CLIENT).valid()).isTrue();
    }

    @Test
    void aSecretCopiedToAnotherUsersFactorDoesNotOpenAndCountsNothing() throws Exception {
        enrolAndConfirm(USER);
        TotpFactor original = copySecretToMallory();

        assertThatThrownBy(() -> service(NOW).verify("mallory", "123456", CLIENT))
                .isInstanceOf(UnreadableSecretException.class).hasMessageNotContaining(original.secret().ciphertext());
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isZero();
    }

    @Test
    void noSecretIsStoredAuditedOrPrintedAfterEnrolment() throws Exception {
        Enrolment enrolment = service(NOW).enrol(USER, Optional.empty(), Optional.empty(), CLIENT);
        Authenticator app = Authenticator.scan(enrolment.otpauthUri());
        Confirmation confirmation = service(NOW).confirm(USER, enrolment.factorId(), app.codeAt(NOW), CLIENT);
        List<String> recoveryCodes = ((Confirmation.Confirmed) confirmation).recoveryCodes().orElseThrow().codes();

        List<String> secrets = new ArrayList<>(recoveryCodes);
        secrets.add(enrolment.secret());
        secrets.add(enrolment.secret().toLowerCase(java.util.Locale.ROOT));
        String everythingKept = store.table().factors() + " " + store.table().recoveryCodes() + " " + store.table().auditEntries()
                + " " + enrolment + " " + confirmation;
        for (String secret : secrets) {
            assertThat(everythingKept).doesNotContain(secret).doesNotContain(secret.replace("-", ""));
        }
        assertThat(enrolment.toString()).doesNotContain(enrolment.otpauthUri()).contains("redacted");
    }

    /**
     * A second factor confirmed while a new set is issued for the user: the confirmation stands, and shows no codes
     * rather than codes the other issue voids.
     */
    @Test
    void aConfirmationWhoseRecoveryCodesLoseToASimultaneousIssueIsConfirmedWithoutCodes() throws Exception {
        enrolAndConfirm(USER);
        Enrolment second = service(NOW).enrol(USER, Optional.empty(), Optional.empty(), CLIENT);
        Authenticator app = Authenticator.scan(second.otpauthUri());
        List<RecoveryCodeIssue> regenerated = new ArrayList<>();
        store.recoveryCodes().afterNextRecoverySetRead(() -> regenerated.add(service(NOW).regenerateRecoveryCodes(USER, CLIENT)
                .orElseThrow()));

        Confirmation confirmation = service(NOW).confirm(USER, second.factorId(), app.codeAt(NOW), CLIENT);

        assertThat(confirmation).isEqualTo(new Confirmation.Confirmed(second.factorId(), Optional.empty()));
        assertThat(service(NOW).list(USER)).allMatch(FactorSummary::confirmed).hasSize(2);
        assertThat(regenerated).singleElement().isInstanceOf(RecoveryCodeIssue.Issued.class);
        assertThat(store.table().recoveryCodes()).as("the regenerated set alone").hasSize(10);
        assertThat(audit(AuditEventType.RECOVERY_CODES_ISSUED)).as("the first confirmation's and the new set")
                .hasSize(2);
    }

    @Test
    void removingTheLastConfirmedFactorTakesTheRecoveryCodesAlong() throws Exception {
        enrolAndConfirm(USER);
        TotpService service = service(NOW);
        String factorId = service.list(USER).get(0).factorId();

        assertThat(service.remove(USER, "0123456789abcdef01234567", CLIENT)).isFalse();
        assertThat(store.table().recoveryCodes()).hasSize(10);
        assertThat(service.remove(USER, factorId, CLIENT)).isTrue();

        assertThat(service.list(USER)).isEmpty();
        assertThat(store.table().recoveryCodes()).isEmpty();
        assertThat(audit(AuditEventType.TOTP_REMOVED)).singleElement().satisfies(entry -> assertThat(entry.details())
                .containsEntry("factorId", factorId).containsEntry("recoveryCodesRemoved", "10"));
        assertThat(service.regenerateRecoveryCodes(USER, CLIENT)).isEmpty();
    }

    @Test
    void removeAllTakesEveryFactorAndTheRecoveryCodesWithTheOperatorsContext() throws Exception {
        enrolAndConfirm(USER);
        enrolAndConfirm(USER);
        service(NOW).enrol(USER, Optional.empty(), Optional.empty(), CLIENT);
        enrolAndConfirm("grace");

        assertThat(service(NOW).removeAll(USER, Map.of("operatorKeyId", "ops-1"), CLIENT)).isEqualTo(3);

        assertThat(service(NOW).list(USER)).isEmpty();
        assertThat(service(NOW).list("grace")).hasSize(1);
        assertThat(store.table().recoveryCodes()).allMatch(code -> code.userId().equals("grace"));
        assertThat(audit(AuditEventType.TOTP_REMOVED)).singleElement().satisfies(entry -> assertThat(entry.details())
                .containsEntry("count", "3").containsEntry("operatorKeyId", "ops-1"));
    }

    @Test
    void badInputIsRefusedNamingTheFieldBeforeAnythingIsCounted() {
        TotpService service = service(NOW);

        assertThatThrownBy(() -> service.verify(USER, "12345", CLIENT)).isInstanceOfSatisfying(
                InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("code"));
        assertThatThrownBy(() -> service.confirm(USER, "not-an-id", "123456", CLIENT)).isInstanceOfSatisfying(
                InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("factorId"));
        assertThatThrownBy(() -> service.enrol(USER, Optional.of("a:b"), Optional.empty(), CLIENT))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("label"));
        assertThatThrownBy(() -> service.enrol(USER, Optional.empty(), Optional.of("x".repeat(65)), CLIENT))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("issuer"));
        assertThat(store.counters().placeRequests(TotpService.VERIFY_ACTION)).isZero();
    }

    @Test
    void aWrongConfirmationCodeIsCountedAndTheFactorStaysPending() throws Exception {
        Enrolment enrolment = service(NOW).enrol(USER, Optional.empty(), Optional.empty(), CLIENT);
        Authenticator app = Authenticator.scan(enrolment.otpauthUri());
        String wrong = app.codeAt(NOW).equals("000000") ? "111111" : "000000";

        assertThat(service(NOW).confirm(USER, enrolment.factorId(), wrong, CLIENT))
                .isEqualTo(new Confirmation.NotConfirmed(Confirmation.Reason.INVALID_CODE));
        assertThat(store.table().held(TotpService.VERIFY_ACTION)).isOne();
        assertThat(service(NOW).confirm(USER, enrolment.factorId(), app.codeAt(NOW), CLIENT).confirmed()).isTrue();
        assertThat(service(NOW).confirm(USER, enrolment.factorId(), app.codeAt(NOW), CLIENT))
                .isEqualTo(new Confirmation.NotConfirmed(Confirmation.Reason.ALREADY_CONFIRMED));
    }
}

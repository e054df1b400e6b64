package dev.verificationservice.recovery;

import dev.verificationservice.Concurrently;
import dev.verificationservice.Verification;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.TestStore;
import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecoveryCodeServiceTest {

    private static final String USER = "ada";
    private static final ClientContext CLIENT = ClientContext.none();
    private static final String CONSECUTIVE = RecoveryCodeService.VERIFY_ACTION
            + CountedAttempts.CONSECUTIVE_SUFFIX;
    private static final String CODE_SHAPE = "[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}";

    private final SecureRandom random = new SecureRandom();
    private final Clock clock = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
    private final TestStore store = new TestStore();
    private final String oldKey = SecretKeyRing.generateBase64Key(random);
    private final RecoveryCodeService service = service(SecretKeyRing.fromBase64(List.of(oldKey)));

    private RecoveryCodeService service(SecretKeyRing keys) {
        return service(keys, clock);
    }

    private RecoveryCodeService service(SecretKeyRing keys, Clock clock) {
        return Verification.builder().store(store).keys(keys).sender(new DevelopmentOutbox(clock)).clock(clock)
                .build().recovery();
    }

    @Test
    void aSetIsTenReadableCodesStoredOnlyAsDigests() {
        List<String> codes = issued(service);

        assertThat(codes).hasSize(10).doesNotHaveDuplicates().allMatch(code -> code.matches(CODE_SHAPE));
        String stored = store.table().recoveryCodes() + " " + store.table().auditEntries();
        codes.forEach(code -> assertThat(stored).doesNotContain(code).doesNotContain(code.replace("-", "")));
        assertThat(store.table().recoveryCodes()).hasSize(10);
        assertThat(service.remaining(USER)).isEqualTo(10);
    }

    @Test
    void eachCodeWorksOnceAndAUsedCodeIsNoWrongGuess() {
        String code = issued(service).get(3);

        assertThat(service.verify(USER, code, CLIENT)).isEqualTo(new RecoveryVerification.Valid(9));
        assertThat(service.verify(USER, code, CLIENT))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.USED, 9));
        assertThat(store.table().held(RecoveryCodeService.VERIFY_ACTION)).isZero();
        assertThat(store.table().auditEntries()).filteredOn(entry -> entry.eventType() == AuditEventType.RECOVERY_CODE_USED)
                .singleElement().satisfies(entry -> assertThat(entry.details()).containsEntry("remaining", "9"));
    }

    @Test
    void whatAPersonTypesIsNormalised() {
        List<String> codes = issued(service);
        String[] halves = codes.get(3).split("-");

        assertThat(service.verify(USER, codes.get(0).toUpperCase(java.util.Locale.ROOT), CLIENT).valid()).isTrue();
        assertThat(service.verify(USER, " " + halves[0] + " " + halves[1] + " ", CLIENT).valid()).isTrue();
        // The same code in another spelling is the same, used, code.
        assertThat(service.verify(USER, codes.get(0).replace("-", " "), CLIENT))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.USED, 8));
        assertThat(service.verify(USER, codes.get(1).replace("-", ""), CLIENT).valid()).isTrue();
        assertThat(service.verify(USER, codes.get(2).replace("-", "\u2013"), CLIENT).valid()).isTrue();
        assertThat(RecoveryCodes.normalise(" AbCdE - fGhJk ")).isEqualTo("abcdefghjk");
    }

    @Test
    void whatCannotBeACodeIsBadInputAndNotCounted() {
        issued(service);

        for (String typed : List.of("0bcde-fghjk", "abcde-fghj", "abcde-fghjkm", "abcde_fghjk", "")) {
            assertThatThrownBy(() -> service.verify(USER, typed, CLIENT)).isInstanceOfSatisfying(
                    InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("code"));
        }
        assertThat(store.counters().placeRequests(RecoveryCodeService.VERIFY_ACTION)).isZero();
    }

    @Test
    void aNewSetVoidsTheOldOne() {
        String old = issued(service).get(0);
        List<String> fresh = issued(service);

        assertThat(service.verify(USER, old, CLIENT))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.INVALID_CODE, 10));
        assertThat(service.verify(USER, fresh.get(0), CLIENT)).isEqualTo(new RecoveryVerification.Valid(9));
        assertThat(store.table().recoveryCodes()).hasSize(10);
    }

    @Test
    void onlyTheNewestSetVerifiesEvenWhenAnOlderOneWasNotDeleted() {
        String older = issued(service).get(0);
        RecoveryCodeService later = service(SecretKeyRing.fromBase64(List.of(oldKey)),
                Clock.offset(clock, java.time.Duration.ofMinutes(1)));
        // As an issue of a version that did not delete the set it voided leaves it: still stored, beside the newer.
        store.recoveryCodes().keepVoidedCodesOnce();
        issued(later);
        assertThat(store.table().recoveryCodes()).as("both sets").hasSize(20);

        assertThat(later.verify(USER, older, CLIENT).valid()).isFalse();
        assertThat(later.remaining(USER)).isEqualTo(10);
    }

    @Test
    void wrongCodesLockOutAfterTheLimit() {
        String right = issued(service).get(0);

        List<RecoveryVerification.Reason> reasons = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            reasons.add(((RecoveryVerification.Invalid) service.verify(USER, "abcde-fghjk", CLIENT)).reason());
        }

        assertThat(reasons).endsWith(RecoveryVerification.Reason.TOO_MANY_ATTEMPTS)
                .startsWith(RecoveryVerification.Reason.INVALID_CODE);
        assertThat(service.verify(USER, right, CLIENT))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.TOO_MANY_ATTEMPTS, 10));
        assertThat(store.table().auditEntries()).filteredOn(entry -> entry.eventType() == AuditEventType.RECOVERY_CODE_FAILED)
                .hasSize(6);
    }

    /** A window's lock-out ends with the window: a third party keeps the user out 15 minutes at a time. */
    @Test
    void aLockOutEndsWithItsWindow() {
        String right = issued(service).get(0);
        for (int attempt = 0; attempt < 5; attempt++) {
            service.verify(USER, "abcde-fghjk", CLIENT);
        }
        Clock windowEnd = Clock.fixed(Instant.parse("2026-12-01T10:15:00Z"), ZoneOffset.UTC);
        RecoveryCodeService later = service(SecretKeyRing.fromBase64(List.of(oldKey)), windowEnd);

        assertThat(later.verify(USER, right, CLIENT)).isEqualTo(new RecoveryVerification.Valid(9));
        assertThat(store.table().held(CONSECUTIVE)).as("the success reset the wrong codes in a row").isZero();
    }

    @Test
    void aWrongCodeCountsInARowAndAUsedOneDoesNot() {
        List<String> codes = issued(service);
        assertThat(service.verify(USER, codes.get(0), CLIENT).valid()).isTrue();

        assertThat(service.verify(USER, codes.get(0), CLIENT).valid()).isFalse();
        assertThat(store.table().held(CONSECUTIVE)).as("USED").isZero();
        assertThat(service.verify(USER, "abcde-fghjk", CLIENT).valid()).isFalse();
        assertThat(store.table().held(CONSECUTIVE)).isOne();
    }

    @Test
    void twentyParallelUsesOfOneCodeSucceedOnce() throws Exception {
        String code = issued(service).get(0);
        List<RecoveryVerification> answers = Concurrently.run(20, () -> service.verify(USER, code, CLIENT));

        assertThat(answers).filteredOn(RecoveryVerification::valid).hasSize(1);
        // USED, or TOO_MANY_ATTEMPTS untested while the limit's places were all held by uses still in flight (how
        // many depends on how the threads overlap); never a wrong guess, and nothing stays counted.
        assertThat(answers).filteredOn(answer -> !answer.valid()).extracting(answer ->
                ((RecoveryVerification.Invalid) answer).reason()).hasSize(19).contains(RecoveryVerification.Reason.USED)
                .isSubsetOf(RecoveryVerification.Reason.USED, RecoveryVerification.Reason.TOO_MANY_ATTEMPTS);
        assertThat(service.remaining(USER)).isEqualTo(9);
        assertThat(service.verify(USER, issued(service).get(0), CLIENT).valid()).isTrue();
    }

    @Test
    void codesIssuedUnderAnOldKeyStillVerifyAfterRotation() {
        String code = issued(service).get(0);
        RecoveryCodeService rotated = service(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(random),
                oldKey)));

        assertThat(rotated.verify(USER, code, CLIENT).valid()).isTrue();
    }

    @Test
    void theIssuedSetNeverPrintsItsCodes() {
        IssuedRecoveryCodes issued = ((RecoveryCodeIssue.Issued) service.issue(USER, CLIENT)).codes();

        issued.codes().forEach(code -> assertThat(issued.toString()).doesNotContain(code));
    }

    /** Another issue lands between this one's reads and its write: this one writes nothing and says so. */
    @Test
    void anIssueWhoseSetWasReplacedAfterItsReadIsAConflictAndWritesNothing() {
        List<String> first = issued(service);
        List<String> winner = new ArrayList<>();
        store.recoveryCodes().afterNextRecoverySetRead(() -> winner.addAll(issued(service)));

        assertThat(service.issue(USER, CLIENT)).isEqualTo(new RecoveryCodeIssue.Conflict());

        assertThat(store.table().recoveryCodes()).as("the winner's set alone").hasSize(10);
        assertThat(store.table().auditEntries()).filteredOn(entry -> entry.eventType() == AuditEventType.RECOVERY_CODES_ISSUED)
                .hasSize(2);
        assertThat(service.verify(USER, first.get(0), CLIENT).valid()).isFalse();
        assertThat(service.verify(USER, winner.get(0), CLIENT)).isEqualTo(new RecoveryVerification.Valid(9));
    }

    private static List<String> issued(RecoveryCodeService service) {
        RecoveryCodeIssue issue = service.issue(USER, CLIENT);
        assertThat(issue).isInstanceOf(RecoveryCodeIssue.Issued.class);
        return ((RecoveryCodeIssue.Issued) issue).codes().codes();
    }
}

package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.recovery.IssuedRecoveryCodes;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeIssue;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryCodes;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.recovery.RecoveryVerification;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.testsupport.concurrency.MeetingPoints;
import dev.verificationservice.testsupport.proxies.Interposed;
import dev.verificationservice.totp.Confirmation;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpService;
import dev.verificationservice.totp.TotpVerification;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.Test;

/**
 * Authenticator apps and recovery codes on the store: the factor and its audit entry written together,
 * pending factors lapsing on read, the replay rule as one conditional write (the same step twice, an older step after
 * a newer one, fifty at once), recovery codes used once, retries by attempt id, deletes, and no secret in clear.
 */
public abstract class TotpContract extends ContractPart {

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    protected TotpContract(ContractFixture fixture) {
        super(fixture);
    }

    // Enrolment

    @Test
    void anEnrolmentWritesThePendingFactorWithItsTtlAndItsEntryTogether() {
        Enrolment enrolment = enrol("ada");

        assertThat(store().totp().findFactor("ada", enrolment.factorId())).hasValueSatisfying(factor -> {
            assertThat(factor.confirmed()).isFalse();
            assertThat(factor.expiresAt()).contains(enrolment.expiresAt());
            assertThat(factor.lastAcceptedStep()).isEqualTo(TotpFactor.NO_STEP);
            assertThat(factor.lastUsedAt()).isEmpty();
        });
        assertThat(store().totp().findFactors("ada")).extracting(TotpFactor::factorId).containsExactly(enrolment.factorId());
        assertThat(auditTypes("ada")).containsExactly(AuditEventType.TOTP_ENROLLED);
    }

    @Test
    void aFactorWhoseEntryCannotBeWrittenIsNotStoredAndATakenFactorKeyIsRefused() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        TotpFactor stored = store().totp().findFactor("bea", enrol("bea").factorId()).orElseThrow();
        AuditEntry taken = verification().audit().recordSuccess("bea", AuditEventType.CODE_SENT, Map.of(),
                ClientContext.none());
        AuditEntry sameKey = new AuditEntry("bea", taken.timestamp(), taken.entryId(), AuditEventType.TOTP_ENROLLED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), taken.expiresAt());
        TotpFactor another = new TotpFactor("bea", "0123456789abcdef01234567", "bea", "Example", TotpAlgorithm.SHA1, 6,
                Duration.ofSeconds(30), stored.secret(), false, START, Optional.of(START.plusSeconds(900)),
                TotpFactor.NO_STEP, Optional.empty());

        assertThatThrownBy(() -> store().totp().insertFactor(another, sameKey, TotpService.MAX_FACTORS)).isInstanceOf(StoreException.class);
        assertThat(store().totp().findFactor("bea", another.factorId())).as("no factor without its entry").isEmpty();

        assertThatThrownBy(() -> store().totp().insertFactor(stored, newEntry("bea", AuditEventType.TOTP_ENROLLED), TotpService.MAX_FACTORS))
                .as("the key of a stored factor").isInstanceOf(StoreException.class);
        assertThat(auditTypes("bea")).containsExactly(AuditEventType.CODE_SENT, AuditEventType.TOTP_ENROLLED);
    }

    /**
     * The cap is counted inside the enrolment's own atomic write: thirty at once, half through a second store instance
     * on the same table or file (a second service), end at exactly the cap.
     */
    @Test
    void ofThirtyConcurrentEnrolmentsOfOneUserThroughTwoInstancesExactlyTheCapIsStored() throws Exception {
        Verification other = on(anotherInstance());
        AtomicInteger turn = new AtomicInteger();
        List<Object> results = runConcurrently(30, () -> {
            Verification through = turn.getAndIncrement() % 2 == 0 ? verification() : other;
            try {
                return through.totp().enrol("cap", Optional.empty(), Optional.empty(), ClientContext.none());
            } catch (InvalidInputException refused) {
                return refused;
            }
        });

        assertThat(results).filteredOn(Enrolment.class::isInstance).hasSize(TotpService.MAX_FACTORS);
        assertThat(results).filteredOn(InvalidInputException.class::isInstance)
                .hasSize(30 - TotpService.MAX_FACTORS);
        assertThat(store().totp().findFactors("cap")).hasSize(TotpService.MAX_FACTORS);
        assertThat(auditTypes("cap").stream().filter(AuditEventType.TOTP_ENROLLED::equals))
                .hasSize(TotpService.MAX_FACTORS);
    }

    @Test
    void aDeletedFactorFreesItsPlaceUnderTheCapAndAnExpiredPendingOneDoesNotHoldOne() {
        List<Enrolment> enrolled = new ArrayList<>();
        for (int i = 0; i < TotpService.MAX_FACTORS; i++) {
            enrolled.add(enrol("full"));
        }
        assertField(() -> enrol("full"), "userId");

        verification().totp().remove("full", enrolled.get(0).factorId(), ClientContext.none());
        enrol("full");
        assertField(() -> enrol("full"), "userId");

        clock().advance(Duration.ofDays(2));
        enrol("full");
        assertThat(store().totp().findFactors("full").stream().filter(factor -> !factor.isExpiredAt(clock().instant())))
                .hasSize(1);
    }

    /** A store hands a lapsed pending factor back as stored; no read or write treats it as live. */
    @Test
    void aPendingFactorLapsesOnReadAndItsConfirmationIsRefusedOnceItsTtlPassed() {
        Enrolment enrolment = enrol("cai");
        clock().set(enrolment.expiresAt());

        assertThat(store().totp().findFactor("cai", enrolment.factorId()))
                .hasValueSatisfying(factor -> assertThat(factor.isExpiredAt(clock().instant())).isTrue());
        assertThat(verification().totp().list("cai")).isEmpty();
        assertThat(confirm("cai", enrolment)).isEqualTo(new Confirmation.NotConfirmed(Confirmation.Reason.NOT_FOUND));
        assertThat(store().totp().confirmFactor(acceptance("cai", enrolment.factorId(), currentStep(), attempt("late-1"),
                AuditEventType.TOTP_CONFIRMED, Optional.empty())))
                .as("the store's own condition: ttl > now").isInstanceOf(StepOutcome.Refused.class);
        assertThat(store().totp().findFactor("cai", enrolment.factorId()).orElseThrow().confirmed()).isFalse();
    }

    @Test
    void aConfirmationRetriedByItsAttemptIdIsConfirmedAgainWritingOnceAndGivingBackOnce() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        Enrolment enrolment = enrol("dan");
        Place place = placeOf("dan", TotpService.VERIFY_ACTION, attempt("confirm-1"));
        store().counters().takePlace(place, 5);
        StepAcceptance confirmation = acceptance("dan", enrolment.factorId(), currentStep(), attempt("confirm-1"),
                AuditEventType.TOTP_CONFIRMED, Optional.of(place));

        assertThat(store().totp().confirmFactor(confirmation)).isEqualTo(new StepOutcome.Accepted());
        assertThat(store().totp().confirmFactor(confirmation)).as("the same attempt again").isEqualTo(new StepOutcome.Accepted());
        assertThat(store().totp().confirmFactor(acceptance("dan", enrolment.factorId(), currentStep(), attempt("confirm-2"),
                AuditEventType.TOTP_CONFIRMED, Optional.empty())))
                .isInstanceOfSatisfying(StepOutcome.Refused.class, refused -> assertThat(refused.current())
                        .hasValueSatisfying(factor -> assertThat(factor.confirmed()).isTrue()));

        TotpFactor confirmed = store().totp().findFactor("dan", enrolment.factorId()).orElseThrow();
        assertThat(confirmed.expiresAt()).as("a confirmed factor has no ttl").isEmpty();
        assertThat(confirmed.lastAcceptedStep()).as("the confirming code's step").isEqualTo(currentStep());
        assertThat(auditTypes("dan")).containsExactly(AuditEventType.TOTP_CONFIRMED, AuditEventType.TOTP_ENROLLED);
        assertThat(verification().rateLimiter().current("dan", TotpService.VERIFY_ACTION, FIVE).count()).isZero();
    }

    // The replay rule

    @Test
    void theSameCodeTwiceAndAnOlderStepAfterANewerOneAreRefused() {
        Enrolment enrolment = confirmed("eve");
        assertThat(verify("eve", enrolment)).as("the confirming code").isEqualTo(replayed());

        clock().advance(Duration.ofSeconds(30));
        assertThat(verify("eve", enrolment)).isEqualTo(new TotpVerification.Valid(enrolment.factorId()));
        assertThat(verify("eve", enrolment)).isEqualTo(replayed());
        long newest = currentStep();
        assertThat(store().totp().acceptStep(acceptance("eve", enrolment.factorId(), newest - 1, attempt("older-1"),
                AuditEventType.TOTP_VERIFIED, Optional.empty()))).as("an older step").isInstanceOf(StepOutcome.Refused.class);
        assertThat(store().totp().acceptStep(acceptance("eve", enrolment.factorId(), newest + 1, attempt("newer-1"),
                AuditEventType.TOTP_VERIFIED, Optional.empty()))).isEqualTo(new StepOutcome.Accepted());

        TotpFactor factor = store().totp().findFactor("eve", enrolment.factorId()).orElseThrow();
        assertThat(factor.lastAcceptedStep()).isEqualTo(newest + 1);
        assertThat(factor.lastUsedAt()).contains(clock().instant());
        assertThat(verification().rateLimiter().current("eve", TotpService.VERIFY_ACTION, FIVE).count())
                .as("a replay is no wrong guess").isZero();
    }

    @Test
    void aPendingFactorAcceptsNoStep() {
        Enrolment enrolment = enrol("fay");

        assertThat(store().totp().acceptStep(acceptance("fay", enrolment.factorId(), currentStep(), attempt("early-1"),
                AuditEventType.TOTP_VERIFIED, Optional.empty()))).isInstanceOf(StepOutcome.Refused.class);
        assertThat(verify("fay", enrolment)).isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.NO_FACTOR));
    }

    @Test
    void ofFiftyConcurrentAcceptancesOfOneStepExactlyOneWinsAndARetryOfTheWinnerIsAcceptedAgain() throws Exception {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        Enrolment enrolment = confirmed("gus");
        long step = currentStep() + 1;
        AtomicInteger attempts = new AtomicInteger();

        List<StepAcceptance> winners = runConcurrently(50, () -> {
            StepAcceptance acceptance = acceptance("gus", enrolment.factorId(), step, attempt("race-" + attempts.incrementAndGet()),
                    AuditEventType.TOTP_VERIFIED, Optional.empty());
            return store().totp().acceptStep(acceptance) instanceof StepOutcome.Accepted ? acceptance : null;
        }).stream().filter(acceptance -> acceptance != null).toList();

        assertThat(winners).hasSize(1);
        assertThat(store().totp().acceptStep(winners.get(0))).as("the winner's retry").isEqualTo(new StepOutcome.Accepted());
        assertThat(auditTypes("gus").stream().filter(AuditEventType.TOTP_VERIFIED::equals)).hasSize(1);
        assertThat(store().totp().findFactor("gus", enrolment.factorId()).orElseThrow().lastAcceptedStep()).isEqualTo(step);
    }

    @Test
    void ofFiftyConcurrentSubmissionsOfOneValidCodeExactlyOneIsValid() throws Exception {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        Enrolment enrolment = confirmed("hal");
        clock().advance(Duration.ofSeconds(30));

        List<TotpVerification> results = runConcurrently(50, () -> verify("hal", enrolment));

        assertThat(results).filteredOn(TotpVerification::valid).hasSize(1);
        assertThat(results).filteredOn(result -> !result.valid()).extracting(result ->
                ((TotpVerification.Invalid) result).reason()).doesNotContain(TotpVerification.Reason.INVALID_CODE);
    }

    /** Rotation on use: the write that accepts a step re-seals a secret of an older key under the current one. */
    @Test
    void anAcceptedStepReSealsASecretOfAnOlderKeyInTheSameWrite() {
        Enrolment enrolment = confirmed("ian");
        String oldKeyId = store().totp().findFactor("ian", enrolment.factorId()).orElseThrow().secret().keyId();
        Verification rotated = Verification.builder().store(store()).keys(keys()).sender(outbox()).clock(clock())
                .encryption(EncryptionKeyRing.fromBase64(List.of(EncryptionKeyRing.generateBase64Key(RANDOM),
                        encryptionKeyBase64()))).build();
        clock().advance(Duration.ofSeconds(30));

        assertThat(rotated.totp().verify("ian", codeNow(enrolment), ClientContext.none()).valid()).isTrue();

        assertThat(store().totp().findFactor("ian", enrolment.factorId()).orElseThrow().secret().keyId())
                .isNotEqualTo(oldKeyId);
        clock().advance(Duration.ofSeconds(30));
        assertThat(rotated.totp().verify("ian", codeNow(enrolment), ClientContext.none()).valid())
                .as("opens under the new key").isTrue();
    }

    // Recovery codes

    @Test
    void ofFiftyConcurrentUsesOfOneRecoveryCodeExactlyOneSucceedsAndARetryOfItSucceedsAgain() throws Exception {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        confirmed("jon");
        RecoveryCode code = store().recoveryCodes().findRecoveryCodes("jon").get(0);
        AtomicInteger attempts = new AtomicInteger();

        List<RecoveryCodeUse> winners = runConcurrently(50, () -> {
            RecoveryCodeUse use = new RecoveryCodeUse("jon", code.digest(), code.setId(), clock().instant(),
                    attempt("use-" + attempts.incrementAndGet()), newEntry("jon", AuditEventType.RECOVERY_CODE_USED),
                    Optional.empty());
            return store().recoveryCodes().useRecoveryCode(use) instanceof RecoveryUseOutcome.Used ? use : null;
        }).stream().filter(use -> use != null).toList();

        assertThat(winners).hasSize(1);
        assertThat(store().recoveryCodes().useRecoveryCode(winners.get(0))).as("the winner's retry").isEqualTo(new RecoveryUseOutcome.Used());
        assertThat(auditTypes("jon").stream().filter(AuditEventType.RECOVERY_CODE_USED::equals)).hasSize(1);
        assertThat(store().recoveryCodes().findRecoveryCodes("jon")).filteredOn(RecoveryCode::used).singleElement()
                .satisfies(used -> assertThat(used.usedAt()).contains(clock().instant()));
    }

    @Test
    void ofFiftyConcurrentVerificationsOfOneRecoveryCodeExactlyOneIsValid() throws Exception {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        String code = confirmedWithCodes("kim").codes().get(0);

        List<RecoveryVerification> results = runConcurrently(50,
                () -> verification().recovery().verify("kim", code, ClientContext.none()));

        assertThat(results).filteredOn(RecoveryVerification::valid).hasSize(1);
        assertThat(verification().recovery().verify("kim", code, ClientContext.none()))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.USED, 9));
    }

    @Test
    void aUseNamingAnotherSetIsRefusedAndANewSetVoidsTheOld() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        IssuedRecoveryCodes first = confirmedWithCodes("lea");
        RecoveryCode stored = store().recoveryCodes().findRecoveryCodes("lea").get(0);
        assertThat(store().recoveryCodes().useRecoveryCode(new RecoveryCodeUse("lea", stored.digest(), "another-set", clock().instant(),
                attempt("use-1"), newEntry("lea", AuditEventType.RECOVERY_CODE_USED), Optional.empty())))
                .isInstanceOf(RecoveryUseOutcome.Refused.class);

        IssuedRecoveryCodes second = issued(verification(), "lea");

        assertThat(store().recoveryCodes().findRecoveryCodes("lea")).hasSize(10).extracting(RecoveryCode::setId).doesNotContain(stored.setId());
        assertThat(verification().recovery().verify("lea", first.codes().get(0), ClientContext.none()))
                .isEqualTo(new RecoveryVerification.Invalid(RecoveryVerification.Reason.INVALID_CODE, 10));
        assertThat(verification().recovery().verify("lea", second.codes().get(0), ClientContext.none()).valid()).isTrue();
    }

    /**
     * A double click on two service instances: two issues that each read the user's set before either wrote. One
     * set is written and works; the other issue writes nothing and says so: no answer shows codes that never work.
     */
    @Test
    void ofTwoIssuesThatReadTheSameSetThroughTwoInstancesOneWorksAndTheOtherIsAConflict() throws Exception {
        confirmed("pia");
        MeetingPoints reads = new MeetingPoints();
        List<Verification> instances = List.of(
                on(meetingAtRecoveryCodeReads(reads, store())), on(meetingAtRecoveryCodeReads(reads, anotherInstance())));
        reads.meet("pia", 2);
        AtomicInteger turn = new AtomicInteger();

        List<RecoveryCodeIssue> answers = runConcurrently(2,
                () -> instances.get(turn.getAndIncrement()).recovery().issue("pia", ClientContext.none()));

        assertThat(answers).filteredOn(RecoveryCodeIssue.Conflict.class::isInstance).hasSize(1);
        IssuedRecoveryCodes winner = answers.stream().filter(RecoveryCodeIssue.Issued.class::isInstance)
                .map(answer -> ((RecoveryCodeIssue.Issued) answer).codes()).findFirst().orElseThrow();
        assertThat(store().recoveryCodes().findRecoveryCodes("pia")).as("one set").hasSize(RecoveryCodes.SET_SIZE);
        assertThat(verification().recovery().verify("pia", winner.codes().get(0), ClientContext.none()))
                .isEqualTo(new RecoveryVerification.Valid(RecoveryCodes.SET_SIZE - 1));
        assertThat(auditTypes("pia").stream().filter(AuditEventType.RECOVERY_CODES_ISSUED::equals))
                .as("the confirmation's set and the winner's").hasSize(2);
    }

    /** {@code store} with each read of a user's recovery codes meeting the others {@code reads} armed. */
    private static VerificationStore meetingAtRecoveryCodeReads(MeetingPoints reads, VerificationStore store) {
        return Interposed.withPort(VerificationStore.class, store, "recoveryCodes",
                reads.around(RecoveryCodeRepository.class, store.recoveryCodes(), "findRecoveryCodes", args -> args[0]));
    }

    /** A replacement conditioned on a set that is no longer the user's writes nothing, whatever it carries. */
    @Test
    void aReplacementOfASetThatWasReplacedSinceIsRefusedAndWritesNothing() {
        confirmed("rex");
        Optional<String> read = store().recoveryCodes().currentRecoverySet("rex");
        List<RecoveryCode> old = store().recoveryCodes().findRecoveryCodes("rex");
        IssuedRecoveryCodes current = issued(verification(), "rex");
        RecoveryCodeReplacement late = new RecoveryCodeReplacement("rex", read, "set-late", old,
                List.of(new RecoveryCode("rex", "digest-late", "set-late", clock().instant(), false, Optional.empty())),
                newEntry("rex", AuditEventType.RECOVERY_CODES_ISSUED));

        assertThat(read).isPresent();
        assertThat(store().recoveryCodes().replaceRecoveryCodes(late)).isFalse();
        assertThat(store().recoveryCodes().replaceRecoveryCodes(new RecoveryCodeReplacement("rex", Optional.empty(), "set-late", old,
                late.issued(), newEntry("rex", AuditEventType.RECOVERY_CODES_ISSUED)))).as("as if the user had no set")
                .isFalse();

        assertThat(store().recoveryCodes().findRecoveryCodes("rex")).hasSize(RecoveryCodes.SET_SIZE)
                .extracting(RecoveryCode::digest).doesNotContain("digest-late");
        assertThat(store().recoveryCodes().currentRecoverySet("rex")).isNotEqualTo(read).isNotEqualTo(Optional.of("set-late"));
        assertThat(verification().recovery().verify("rex", current.codes().get(0), ClientContext.none()).valid())
                .isTrue();
        assertThat(auditTypes("rex").stream().filter(AuditEventType.RECOVERY_CODES_ISSUED::equals)).hasSize(2);
    }

    @Test
    void aRetriedReplacementWritesTheSameSetAndOneEntry() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        confirmed("max");
        List<RecoveryCode> old = store().recoveryCodes().findRecoveryCodes("max");
        List<RecoveryCode> issued = List.of(
                new RecoveryCode("max", "digest-one", "set-2", clock().instant(), false, Optional.empty()),
                new RecoveryCode("max", "digest-two", "set-2", clock().instant(), false, Optional.empty()));
        RecoveryCodeReplacement replacement = new RecoveryCodeReplacement("max", store().recoveryCodes().currentRecoverySet("max"),
                "set-2", old, issued, newEntry("max", AuditEventType.RECOVERY_CODES_ISSUED));

        assertThat(store().recoveryCodes().replaceRecoveryCodes(replacement)).isTrue();
        assertThat(store().recoveryCodes().replaceRecoveryCodes(replacement)).as("its own retry is no conflict").isTrue();

        assertThat(store().recoveryCodes().findRecoveryCodes("max")).containsExactlyInAnyOrderElementsOf(issued);
        assertThat(store().recoveryCodes().currentRecoverySet("max")).contains("set-2");
        assertThat(auditTypes("max").stream().filter(AuditEventType.RECOVERY_CODES_ISSUED::equals))
                .as("the confirmation's set and this one").hasSize(2);
    }

    // Deletes

    @Test
    void deletesRemoveOneFactorOrAllAndTheRecoveryCodesAndLeaveTheRestOfTheUser() {
        Enrolment first = confirmed("ned");
        Enrolment second = enrol("ned");
        enrol("other");

        assertThat(store().totp().deleteFactors("ned", Optional.of(second.factorId()))).extracting(TotpFactor::factorId)
                .containsExactly(second.factorId());
        assertThat(store().totp().deleteFactors("ned", Optional.of(second.factorId()))).as("gone already").isEmpty();
        enrol("ned");
        assertThat(store().totp().deleteFactors("ned", Optional.empty())).hasSize(2)
                .extracting(TotpFactor::factorId).contains(first.factorId());
        Optional<String> set = store().recoveryCodes().currentRecoverySet("ned");
        assertThat(store().recoveryCodes().deleteRecoveryCodes("ned")).hasSize(10);
        assertThat(store().recoveryCodes().currentRecoverySet("ned")).as("the set marker stays").isEqualTo(set).isPresent();

        assertThat(store().totp().findFactors("ned")).isEmpty();
        assertThat(store().recoveryCodes().findRecoveryCodes("ned")).isEmpty();
        assertThat(store().totp().findFactors("other")).hasSize(1);
        assertThat(auditTypes("ned")).as("the user's other items stay").contains(AuditEventType.TOTP_CONFIRMED);
    }

    // Secrets at rest

    @Test
    void afterEnrolmentNoSecretAndNoRecoveryCodeIsStoredInTheClear() {
        Enrolment enrolment = enrol("oli");
        IssuedRecoveryCodes codes = ((Confirmation.Confirmed) confirm("oli", enrolment)).recoveryCodes().orElseThrow();
        byte[] raw = new Base32().decode(enrolment.secret());
        String unpadded = enrolment.secret().replace("=", "");
        List<String> secrets = new ArrayList<>(List.of(unpadded, unpadded.toLowerCase(Locale.ROOT),
                Base64.getEncoder().withoutPadding().encodeToString(raw),
                Base64.getUrlEncoder().withoutPadding().encodeToString(raw), HexFormat.of().formatHex(raw)));
        for (String code : codes.codes()) {
            secrets.add(code);
            secrets.add(code.replace("-", ""));
        }

        List<String> items = allRawItems().stream().map(Object::toString).toList();

        assertThat(items).as("the scan found the user's items").anySatisfy(item -> assertThat(item).contains("TOTP#"));
        for (String secret : secrets) {
            assertThat(items).noneSatisfy(item -> assertThat(item).containsIgnoringCase(secret));
        }
    }

    // Helpers

    /**
     * An attempt id of this test alone: a DynamoDB store sends it as a ClientRequestToken, which the engine remembers
     * for ten minutes across tables, so a name another test used for another request would be refused.
     */
    private String attempt(String name) {
        return name + "-" + run;
    }

    private Enrolment enrol(String userId) {
        return verification().totp().enrol(userId, Optional.empty(), Optional.empty(), ClientContext.none());
    }

    private Confirmation confirm(String userId, Enrolment enrolment) {
        return verification().totp().confirm(userId, enrolment.factorId(), codeNow(enrolment), ClientContext.none());
    }

    /** A factor enrolled and confirmed with the code of the current step. */
    private Enrolment confirmed(String userId) {
        Enrolment enrolment = enrol(userId);
        assertThat(confirm(userId, enrolment).confirmed()).isTrue();
        return enrolment;
    }

    private IssuedRecoveryCodes confirmedWithCodes(String userId) {
        Enrolment enrolment = enrol(userId);
        return ((Confirmation.Confirmed) confirm(userId, enrolment)).recoveryCodes().orElseThrow();
    }

    private static IssuedRecoveryCodes issued(Verification through, String userId) {
        RecoveryCodeIssue issue = through.recovery().issue(userId, ClientContext.none());
        assertThat(issue).isInstanceOf(RecoveryCodeIssue.Issued.class);
        return ((RecoveryCodeIssue.Issued) issue).codes();
    }

    private TotpVerification verify(String userId, Enrolment enrolment) {
        return verification().totp().verify(userId, codeNow(enrolment), ClientContext.none());
    }

    /** What the app shows now: the secret as the enrolment gave it, RFC 6238 at the clock's step. */
    private String codeNow(Enrolment enrolment) {
        return Totp.code(new Base32().decode(enrolment.secret()), currentStep(), TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS);
    }

    private long currentStep() {
        return Totp.step(clock().instant(), Totp.DEFAULT_PERIOD);
    }

    private StepAcceptance acceptance(String userId, String factorId, long step, String attemptId, AuditEventType type,
                                      Optional<Place> place) {
        Instant now = clock().instant();
        return new StepAcceptance(userId, factorId, step, now, attemptId, newEntry(userId, type), place,
                Optional.empty());
    }

    private AuditEntry newEntry(String userId, AuditEventType type) {
        return verification().audit().newEntry(userId, type, true, Optional.empty(), Map.of(), ClientContext.none());
    }

    private static TotpVerification replayed() {
        return new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED);
    }
}

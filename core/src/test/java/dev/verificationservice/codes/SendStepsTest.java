package dev.verificationservice.codes;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.TestStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A send's first step (the lock-out reads and the user's place) goes out at once,
 * then the places shared with others (target, address) at once; and a send still refuses, gives back and starts
 * the cooldown exactly as the limits checked one after another would.
 */
class SendStepsTest {

    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final String SEND = "SEND_EMAIL_VERIFICATION";
    private static final String VERIFY = "VERIFY_EMAIL_VERIFICATION";
    private static final String RESEND = "RESEND_EMAIL_VERIFICATION";
    private static final String IP = "203.0.113.7";

    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final TestStore store = new TestStore();
    private final DevelopmentOutbox outbox = new DevelopmentOutbox(clock);

    /** Every limit 1, except the failure count (5); the cooldown on. */
    private final VerificationSettings tight = VerificationSettings.defaults()
            .withSendLimit(new RateLimitPolicy(1, Duration.ofMinutes(15)))
            .withTargetLimit(new RateLimitPolicy(1, Duration.ofHours(1)))
            .withIpLimit(new RateLimitPolicy(1, Duration.ofHours(1)));

    private Verification verification(VerificationSettings settings) {
        SecretKeyRing keys = SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom())));
        return Verification.builder().store(store).keys(keys).sender(outbox).clock(clock).settings(settings).build();
    }

    private CodeService codes(VerificationSettings settings) {
        return verification(settings).codes();
    }

    private static CodeRequest email(String userId, String address, String ipAddress) {
        CodeRequest request = CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, address);
        return ipAddress == null ? request : request.withClient(ClientContext.of(ipAddress, null, null));
    }

    private static void assertRefusedBy(IssueResult result, String action) {
        assertThat(result).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo(action));
    }

    /** Fills the user's failure count of EMAIL_VERIFICATION: the user is locked out of guessing. */
    private void lockOut(String userId) {
        RateLimiter rateLimiter = verification(VerificationSettings.defaults()).rateLimiter();
        for (int failure = 0; failure < 5; failure++) {
            rateLimiter.acquire(userId, VERIFY, VerificationSettings.DEFAULT_VERIFY_LIMIT);
        }
    }

    @Test
    void theLockOutReadAndTheUsersPlaceAreInFlightTogether() {
        ExecutorService threads = Executors.newCachedThreadPool();
        store.independentCallsOn(threads);
        CodeService service = codes(VerificationSettings.defaults());
        // Lock-out read and the user's place: handed to the store in separate calls, the first would wait alone
        // and fail.
        store.gate().holdUntilTogether(2);

        try {
            assertThat(service.issue(email("ada", "ada@example.com", IP))).isInstanceOf(IssueResult.Issued.class);
        } finally {
            threads.shutdownNow();
        }

        assertThat(store.table().cooldownClaimed("ada", RESEND)).isTrue();
        assertThat(store.table().codes()).hasSize(1);
        assertThat(outbox.messages()).hasSize(1);
    }

    @Test
    void aSendRefusedByTheTargetGivesBackEveryOtherPlaceAndStartsNoCooldown() {
        CodeService service = codes(tight);
        assertThat(service.issue(email("ben", "shared@example.com", null))).isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(service.issue(email("cy", "shared@example.com", IP)), "SEND_TO_TARGET");

        // The user's and the address's places were taken beside the target's, and given back.
        assertThat(store.counters().givenBack()).containsExactlyInAnyOrder(SEND, SendAdmission.IP_ACTION);
        assertThat(store.table().held(SEND)).as("only ben's").isEqualTo(1);
        assertThat(store.table().held(SendAdmission.IP_ACTION)).isZero();
        assertThat(store.table().cooldownClaimed("cy", RESEND)).isFalse();
        // Nothing counts against cy: at the same instant, another address goes out from the same client.
        assertThat(service.issue(email("cy", "cy@example.com", IP))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aLockOutReadBesideTheUsersPlaceStillRefusesAndThePlaceGoesBack() {
        CodeService service = codes(tight);
        lockOut("dee");

        assertRefusedBy(service.issue(email("dee", "dee@example.com", IP)), VERIFY);

        assertThat(store.counters().givenBack()).containsExactly(SEND);
        assertThat(store.counters().placeRequests(SendAdmission.TARGET_ACTION)).as("a locked-out user never reaches them")
                .isZero();
        assertThat(store.counters().placeRequests(SendAdmission.IP_ACTION)).isZero();
        assertThat(store.table().held(SEND)).isZero();
        assertThat(store.table().held(SendAdmission.TARGET_ACTION)).isZero();
        assertThat(store.table().held(SendAdmission.IP_ACTION)).isZero();
        assertThat(store.table().cooldownClaimed("dee", RESEND)).isFalse();
        // A LINK is never stopped by the lock-out of guessing, and the places given back let it through.
        assertThat(service.issue(email("dee", "dee@example.com", IP).withFormat(CodeFormat.LINK)))
                .isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aUserOverItsOwnLimitNeverTouchesTheTargetsOrTheAddresssCount() {
        CodeService service = codes(tight);
        assertThat(service.issue(email("pam", "pam@example.com", null))).isInstanceOf(IssueResult.Issued.class);

        // pam's one send is used: a flood from her account at a victim's address, from one client.
        for (int i = 0; i < 10; i++) {
            assertRefusedBy(service.issue(email("pam", "victim@example.com", IP)), SEND);
        }

        assertThat(store.counters().placeRequests(SendAdmission.TARGET_ACTION)).as("only pam's own send").isEqualTo(1);
        assertThat(store.counters().placeRequests(SendAdmission.IP_ACTION)).isZero();
        // Nothing of the flood stood in the victim's way, not even for a moment.
        assertThat(service.issue(email("vic", "victim@example.com", IP))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void whenTwoLimitsRefuseAtOnceTheFirstInTheOrderIsReported() {
        CodeService service = codes(tight);
        // eve has had her one code (her cooldown runs), full.example.com its one send, 198.51.100.1 its one.
        assertThat(service.issue(email("eve", "eve@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        assertThat(service.issue(email("fay", "full@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        assertThat(service.issue(email("gus", "gus@example.com", "198.51.100.1"))).isInstanceOf(IssueResult.Issued.class);

        // User and target refuse (and the cooldown would): the user's limit is reported; the target and the
        // address are not even asked.
        assertRefusedBy(service.issue(email("eve", "full@example.com", IP)), SEND);
        assertThat(store.table().held(SendAdmission.IP_ACTION)).as("only gus's").isEqualTo(1);
        // Target and address refuse: the target is reported; the user's place goes back.
        assertRefusedBy(service.issue(email("hal", "full@example.com", "198.51.100.1")), "SEND_TO_TARGET");
        assertThat(store.table().held(SEND)).as("eve's, fay's and gus's").isEqualTo(3);
        // Locked out and over the user's limit: the lock-out is reported.
        lockOut("eve");
        assertRefusedBy(service.issue(email("eve", "eve2@example.com", null)), VERIFY);
        assertThat(store.table().held(SendAdmission.TARGET_ACTION)).as("eve's, fay's and gus's").isEqualTo(3);
        // Only the cooldown refuses: it is reported, and it is claimed after every place, so they all go back.
        VerificationSettings coolOnly = VerificationSettings.defaults();
        CodeService cool = codes(coolOnly);
        assertRefusedBy(cool.issue(email("fay", "fay@example.com", IP)), RESEND);
        assertThat(store.table().held(SendAdmission.IP_ACTION)).isEqualTo(1);
    }

    @Test
    void aRefusedSmsTakesNothingFromTheBudgetWhichIsTakenOnlyOnceEveryOtherPlaceIsGranted() {
        CodeService service = codes(tight.withSmsBudget(Optional.of(new RateLimitPolicy(2, Duration.ofHours(1)))));
        assertThat(service.issue(sms("ivy", "+447700123401"))).isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(service.issue(sms("jay", "+447700123401")), "SEND_TO_TARGET");

        // The budget holds one SMS: the second of two still goes out, and a third is past the budget.
        assertThat(service.issue(sms("kim", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
        assertRefusedBy(service.issue(sms("lee", "+447700123403")), SendAdmission.SMS_BUDGET_ACTION);
    }

    @Test
    void resendsRefusedByTheCooldownNeverTouchTheSmsBudget() {
        // The red team's run: one user, one number, 26 requests inside the cooldown, a budget of 20.
        CodeService service = codes(VerificationSettings.defaults()
                .withSmsBudget(Optional.of(new RateLimitPolicy(20, Duration.ofHours(1)))));
        assertThat(service.issue(sms("mal", "+447700123401"))).isInstanceOf(IssueResult.Issued.class);
        for (int again = 0; again < 25; again++) {
            assertRefusedBy(service.issue(sms("mal", "+447700123401")), "RESEND_PHONE_VERIFICATION");
        }

        assertThat(store.counters().placeRequests(SendAdmission.SMS_BUDGET_ACTION)).as("never even asked").isEqualTo(1);
        assertThat(store.table().held(SendAdmission.SMS_BUDGET_ACTION)).isEqualTo(1);
        assertThat(service.issue(sms("nia", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(store.table().held(SendAdmission.SMS_BUDGET_ACTION)).isEqualTo(2);
    }

    @Test
    void aSendTheBudgetRefusesReleasesItsCooldownAndGivesBackEveryPlace() {
        CodeService service = codes(VerificationSettings.defaults()
                .withSmsBudget(Optional.of(new RateLimitPolicy(1, Duration.ofHours(1)))));
        assertThat(service.issue(sms("oz", "+447700123401"))).isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(service.issue(sms("pia", "+447700123402")), SendAdmission.SMS_BUDGET_ACTION);

        assertThat(store.table().cooldownClaimed("pia", "RESEND_PHONE_VERIFICATION")).isFalse();
        assertThat(store.table().held("SEND_PHONE_VERIFICATION")).as("only oz's").isEqualTo(1);
        assertThat(store.table().held(SendAdmission.TARGET_ACTION)).as("only oz's").isEqualTo(1);
        assertThat(store.table().held(SendAdmission.SMS_BUDGET_ACTION)).isEqualTo(1);
        // Nothing of the refused SMS holds pia back: at the same instant her email code goes out.
        assertThat(service.issue(email("pia", "pia@example.com", null))).isInstanceOf(IssueResult.Issued.class);
    }

    /** A budgeted SMS send of the user that failed with a store failure, and holds nothing afterwards. */
    private void assertAFailedSmsHoldsNothing(String userId) {
        CodeService service = codes(VerificationSettings.defaults()
                .withSmsBudget(Optional.of(new RateLimitPolicy(5, Duration.ofHours(1)))));

        assertThatThrownBy(() -> service.issue(sms(userId, "+447700123401"))).isInstanceOf(StoreException.class);

        assertThat(store.table().held("SEND_PHONE_VERIFICATION")).isZero();
        assertThat(store.table().held(SendAdmission.TARGET_ACTION)).isZero();
        assertThat(store.table().held(SendAdmission.SMS_BUDGET_ACTION)).isZero();
        assertThat(store.table().cooldownClaimed(userId, "RESEND_PHONE_VERIFICATION")).isFalse();
        assertThat(outbox.messages()).isEmpty();
    }

    @Test
    void aStoreFailureAfterAdmissionGivesBackEveryPlaceTheBudgetsTooAndReleasesTheCooldown() {
        store.faults().fail("placeCode");
        assertAFailedSmsHoldsNothing("quy");
    }

    @Test
    void aStoreFailureOfTheBudgetsPlaceReleasesTheCooldownAndGivesBackEveryPlace() {
        store.faults().fail("takePlace:" + SendAdmission.SMS_BUDGET_ACTION);
        assertAFailedSmsHoldsNothing("ray");
    }

    @Test
    void aPlaceWhoseAnswerWasLostStaysCountedAndACooldownWhoseAnswerWasLostIsReleased() {
        // The budget's write lands, and its answer never comes (the SDK gave up): the send fails with 503. The
        // counter holds no mark of the place, so it cannot tell a landed take from one that never landed: the
        // place stays counted (the safe direction), and everything else the send held goes back.
        store.faults().loseAnswers("takePlace:" + SendAdmission.SMS_BUDGET_ACTION);
        CodeService budgeted = codes(VerificationSettings.defaults()
                .withSmsBudget(Optional.of(new RateLimitPolicy(5, Duration.ofHours(1)))));
        assertThatThrownBy(() -> budgeted.issue(sms("sid", "+447700123401"))).isInstanceOf(StoreException.class);
        assertThat(store.table().held(SendAdmission.SMS_BUDGET_ACTION)).as("over by the lost answer, never under")
                .isEqualTo(1);
        assertThat(store.table().held("SEND_PHONE_VERIFICATION")).isZero();
        assertThat(store.table().held(SendAdmission.TARGET_ACTION)).isZero();
        assertThat(store.table().cooldownClaimed("sid", "RESEND_PHONE_VERIFICATION")).isFalse();
        assertThat(outbox.messages()).isEmpty();

        // The same for the cooldown's claim: it is released, so the user may try again at once.
        store.faults().loseAnswers("claimCooldown");
        CodeService service = codes(VerificationSettings.defaults());
        assertThatThrownBy(() -> service.issue(email("tia", "tia@example.com", IP))).isInstanceOf(StoreException.class);
        assertThat(store.table().cooldownClaimed("tia", RESEND)).isFalse();
        assertThat(store.table().held(SEND)).isZero();
        assertThat(store.table().held(SendAdmission.IP_ACTION)).isZero();
    }

    private static CodeRequest sms(String userId, String number) {
        return CodeRequest.of(userId, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, number);
    }

    @Test
    void aStoreFailureOfAPlaceGivesBackThePlacesAlreadyTakenAndStartsNoCooldown() {
        CodeService service = codes(VerificationSettings.defaults());
        store.faults().fail("takePlace:" + SendAdmission.TARGET_ACTION);

        assertThatThrownBy(() -> service.issue(email("max", "max@example.com", IP))).isInstanceOf(StoreException.class)
                .hasMessageContaining(SendAdmission.TARGET_ACTION);

        assertThat(store.table().held(SEND)).isZero();
        assertThat(store.table().held(SendAdmission.IP_ACTION)).isZero();
        assertThat(store.table().cooldownClaimed("max", RESEND)).isFalse();
        assertThat(store.table().codes()).isEmpty();
        assertThat(outbox.messages()).isEmpty();
    }

    @Test
    void theCodeANewOneReplacesIsDeletedAndAuditedAsReplaced() {
        CodeService service = codes(VerificationSettings.defaults().withResendCooldown(Duration.ZERO));
        assertThat(service.issue(email("ola", "ola@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        String first = outbox.messages().get(0).code();

        assertThat(service.issue(email("ola", "ola@example.com", null))).isInstanceOf(IssueResult.Issued.class);

        assertThat(store.table().codes()).hasSize(1);
        assertThat(verification(VerificationSettings.defaults()).audit()
                .query("ola", Optional.empty(), Optional.empty(), Optional.of(100), Optional.empty()).entries())
                .filteredOn(entry -> entry.eventType() == AuditEventType.CODES_INVALIDATED).singleElement()
                .satisfies(entry -> assertThat(entry.details()).containsEntry("reason", "NEW_CODE_REQUESTED"));
        assertThat(service.check(VerifyRequest.numeric(first, "ola", CodeType.EMAIL_VERIFICATION)).valid()).isFalse();
        assertThat(service.check(VerifyRequest.numeric(outbox.messages().get(0).code(), "ola",
                CodeType.EMAIL_VERIFICATION)).valid()).isTrue();
    }
}

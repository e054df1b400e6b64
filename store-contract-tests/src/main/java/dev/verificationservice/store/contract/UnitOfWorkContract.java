package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.testsupport.proxies.Interposed;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The steps of an operation run as one unit of work ({@link UnitOfWork}), and the unit never changes what they
 * mean: the embedded store commits them together, DynamoDB runs them one by one, and both leave the same answers,
 * the same audit and the same counts. What a refusal or a failure must not leave, the domain gives back with the
 * same calls on every store; what it must leave stays on every store: its audit entry, a counted wrong guess, a
 * lock-out's invalidation. Independent calls handed over together ({@link UnitOfWork#together}) answer in order
 * and all run, whichever fails.
 */
public abstract class UnitOfWorkContract extends ContractPart {

    private static final ClientContext CLIENT = ClientContext.of("203.0.113.9", "Safari", null);

    protected UnitOfWorkContract(ContractFixture fixture) {
        super(fixture);
    }

    private IssueResult send(String userId) {
        return verification().codes().issue(CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                userId + "@example.com").withClient(CLIENT));
    }

    /** Event type and failure reason of the user's audit entries, newest first. */
    private List<String> audit(String userId) {
        return verification().audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries().stream()
                .map(entry -> entry.eventType() + entry.failureReason().map(reason -> " " + reason).orElse(""))
                .toList();
    }

    /** Every counter that holds a count (key → count): what a refusal may not change. */
    private Map<String, String> heldCounts() {
        Map<String, String> counts = new TreeMap<>();
        for (Map<String, Object> item : allRawItems()) {
            if (item.get("count") instanceof Number count && count.longValue() > 0) {
                counts.put(item.get("PK") + " " + item.get("SK"), count + " places");
            }
        }
        return counts;
    }

    private long count(String userId, String action) {
        return verification().operator().rateLimits(userId).stream().filter(state -> state.action().equals(action))
                .mapToLong(RateLimitDecision::count).findFirst().orElseThrow();
    }

    @Test
    void aSendTheCooldownRefusesAfterItsPlacesWereTakenLeavesItsAuditEntryAndNoCount() {
        assertThat(send("una")).isInstanceOf(IssueResult.Issued.class);
        Map<String, String> counts = heldCounts();
        assertThat(counts).as("the user's, the target's and the address's places").hasSize(3);

        assertRefusedBy(send("una"), "RESEND_EMAIL_VERIFICATION");

        assertThat(heldCounts()).isEqualTo(counts);
        assertThat(audit("una")).containsExactly("RATE_LIMITED RATE_LIMITED", "CODE_SENT");
        assertThat(outbox().messages()).hasSize(1);
    }

    @Test
    void aSendTheTargetsLimitRefusesLeavesNoPlaceOfTheUserNorOfTheAddress() {
        for (int i = 0; i < 5; i++) {
            assertThat(verification().codes().issue(CodeRequest.of("sender-" + i, CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, "shared@example.com").withClient(CLIENT))).isInstanceOf(IssueResult.Issued.class);
        }
        Map<String, String> counts = heldCounts();

        assertRefusedBy(verification().codes().issue(CodeRequest.of("sender-5", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "shared@example.com").withClient(CLIENT)), "SEND_TO_TARGET");

        assertThat(heldCounts()).isEqualTo(counts);
        assertThat(audit("sender-5")).containsExactly("RATE_LIMITED RATE_LIMITED");
    }

    @Test
    void aWrongGuessStaysCountedWithItsAuditEntryAndASuccessGivesOnlyItsOwnPlaceBack() {
        send("vic");
        String code = latestCode();

        assertThat(reasonOf(verifyEmailCode("vic", wrongCode(code)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(count("vic", "VERIFY_EMAIL_VERIFICATION")).isEqualTo(1);
        assertThat(verifyEmailCode("vic", code).valid()).isTrue();

        assertThat(count("vic", "VERIFY_EMAIL_VERIFICATION")).isEqualTo(1);
        assertThat(audit("vic")).containsExactly("CODE_VERIFIED", "CODE_VERIFICATION_FAILED NOT_FOUND", "CODE_SENT");
    }

    @Test
    void aUsedCodePresentedAgainIsNoWrongGuess() {
        send("wyn");
        String code = latestCode();
        assertThat(verifyEmailCode("wyn", code).valid()).isTrue();

        assertThat(reasonOf(verifyEmailCode("wyn", code))).isEqualTo(FailureReason.USED);
        assertThat(reasonOf(verification().codes().check(VerifyRequest.numeric(code, "wyn",
                CodeType.EMAIL_VERIFICATION)))).isEqualTo(FailureReason.USED);

        assertThat(count("wyn", "VERIFY_EMAIL_VERIFICATION")).isZero();
        assertThat(audit("wyn")).containsExactly("CODE_VERIFICATION_FAILED USED", "CODE_VERIFICATION_FAILED USED",
                "CODE_VERIFIED", "CODE_SENT");
    }

    @Test
    void theGuessThatStartsALockOutLeavesItsCountItsAuditEntryAndTheInvalidation() {
        send("xan");
        String code = latestCode();
        for (int i = 0; i < 4; i++) {
            verifyEmailCode("xan", wrongCode(code));
        }

        assertThat(reasonOf(verifyEmailCode("xan", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);

        assertThat(count("xan", "VERIFY_EMAIL_VERIFICATION")).isEqualTo(5);
        assertThat(audit("xan").subList(0, 2)).containsExactly("CODES_INVALIDATED",
                "CODE_VERIFICATION_FAILED TOO_MANY_ATTEMPTS");
        verification().operator().liftRateLimit("xan", "VERIFY_EMAIL_VERIFICATION", "key-1", ClientContext.none());
        assertThat(reasonOf(verifyEmailCode("xan", code))).as("the invalidation stayed").isEqualTo(FailureReason.NOT_FOUND);
    }

    @Test
    void aGuessPastTheLimitIsRefusedUntestedAndCountsNothingMore() {
        send("yul");
        String code = latestCode();
        for (int i = 0; i < 5; i++) {
            verifyEmailCode("yul", wrongCode(code));
        }
        Map<String, String> counts = heldCounts();

        assertThat(reasonOf(verifyEmailCode("yul", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);

        assertThat(heldCounts()).isEqualTo(counts);
        assertThat(audit("yul").get(0)).isEqualTo("CODE_VERIFICATION_FAILED TOO_MANY_ATTEMPTS");
    }

    @Test
    void aFailedDeliveryLeavesNoUsableCodeItsAuditEntryAndItsPlaces() {
        RecordingFailingSender down = new RecordingFailingSender();
        var failing = build(keys(), down, VerificationSettings.defaults());

        IssueResult result = failing.codes().issue(CodeRequest.of("zed", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "zed@example.com").withClient(CLIENT));

        assertThat(result).isInstanceOf(IssueResult.DeliveryFailed.class);
        assertThat(heldCounts()).as("the channel may have taken the message: its places stay").hasSize(3);
        assertThat(reasonOf(failing.codes().verify(VerifyRequest.numeric(down.attempted.get(0).code(), "zed",
                CodeType.EMAIL_VERIFICATION)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(audit("zed")).containsExactly("CODE_VERIFICATION_FAILED NOT_FOUND",
                "CODE_DELIVERY_FAILED DELIVERY_FAILED");
    }

    @Test
    void concurrentSendsOfOneUserLeaveExactlyTheCountsOfThoseLetThrough() throws Exception {
        List<IssueResult> results = runConcurrently(12, () -> send("ash"));

        long issued = results.stream().filter(IssueResult.Issued.class::isInstance).count();
        assertThat(issued).as("the cooldown lets one through").isEqualTo(1);
        assertThat(count("ash", "SEND_EMAIL_VERIFICATION")).isEqualTo(issued);
        assertThat(audit("ash").stream().filter("CODE_SENT"::equals)).hasSize(1);
        assertThat(audit("ash").stream().filter(entry -> entry.startsWith("RATE_LIMITED"))).hasSize(11);
    }

    @Test
    void independentCallsAnswerInTheOrderGivenAndAllRunWhenOneFails() {
        UnitOfWork units = store().units();
        for (int held = 1; held <= 3; held++) {
            for (int place = 0; place < held; place++) {
                store().counters().takePlace(placeOf("kit-" + held, "SEND_EMAIL_VERIFICATION", "attempt-" + place), 5);
            }
        }

        assertThat(units.together(List.<Supplier<Long>>of(() -> placesOf("kit-3"), () -> placesOf("kit-1"),
                () -> placesOf("kit-2")))).containsExactly(3L, 1L, 2L);

        IllegalStateException first = new IllegalStateException("the first call failed");
        IllegalStateException third = new IllegalStateException("the third call failed");
        assertThatThrownBy(() -> units.together(List.<Supplier<Long>>of(() -> {
            throw first;
        }, () -> store().counters().takePlace(placeOf("lee", "SEND_EMAIL_VERIFICATION", "attempt-1"), 5), () -> {
            throw third;
        }, () -> store().counters().takePlace(placeOf("lee", "SEND_EMAIL_VERIFICATION", "attempt-2"), 5))))
                .isSameAs(first).satisfies(thrown -> assertThat(thrown.getSuppressed()).containsExactly(third));
        assertThat(placesOf("lee")).as("every call beside the failures ran to its end").isEqualTo(2);
    }

    @Test
    void independentCallsInsideAUnitAllRunAndWhatTheDomainKeepsCommitsWithTheUnit() {
        UnitOfWork units = store().units();
        IllegalStateException failed = new IllegalStateException("one call failed");

        List<UnitOfWork.Settled<Long>> ended = units.run("take places beside a failing call",
                () -> units.settle(List.<Supplier<Long>>of(
                        () -> store().counters().takePlace(placeOf("mae", "SEND_EMAIL_VERIFICATION", "attempt-1"), 5), () -> {
                            throw failed;
                        }, () -> store().counters().takePlace(placeOf("mae", "SEND_EMAIL_VERIFICATION", "attempt-2"), 5))));

        assertThat(ended).extracting(UnitOfWork.Settled::failure).containsExactly(null, failed, null);
        assertThat(ended.get(0).value() + ended.get(2).value()).as("places 1 and 2, in either order").isEqualTo(3);
        assertThat(placesOf("mae")).isEqualTo(2);
    }

    @Test
    void aSendWhoseCodeCannotBeStoredGivesBackEveryPlaceAndItsCooldown() {
        assertThat(send("nia")).isInstanceOf(IssueResult.Issued.class);
        clock().advance(java.time.Duration.ofMinutes(1));
        Map<String, String> counts = heldCounts();
        var failing = on(failingAt("placeCode"));

        assertThatThrownBy(() -> failing.codes().issue(CodeRequest.of("nia", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "nia@example.com").withClient(CLIENT))).isInstanceOf(StoreException.class);

        assertThat(heldCounts()).as("every place the send took was given back").isEqualTo(counts);
        assertThat(send("nia")).as("no cooldown holds the next send back").isInstanceOf(IssueResult.Issued.class);
        assertThat(audit("nia")).as("the failed send wrote nothing").containsExactly("CODE_SENT", "CODES_INVALIDATED",
                "CODE_SENT");
    }

    /** The places the user holds in the send counter of the test's window. */
    private long placesOf(String userId) {
        return store().counters().findCounter(userId, "SEND_EMAIL_VERIFICATION", placeOf(userId, "SEND_EMAIL_VERIFICATION", "-")
                .window().windowStart(), clock().instant()).map(counter -> counter.count()).orElse(0L);
    }

    /** This test's store, except that every call of the codes' {@code method} fails as an unreachable store does. */
    private VerificationStore failingAt(String method) {
        return Interposed.withPort(VerificationStore.class, store(), "codes", Interposed.answering(CodeRepository.class,
                store().codes(), method, arguments -> {
                    throw new StoreException("the store could not be reached for " + method);
                }));
    }
}

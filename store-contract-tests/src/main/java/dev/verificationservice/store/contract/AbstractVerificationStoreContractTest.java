package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditPage;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.LiveCode;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.testsupport.junit.SkipReasonReporter;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.validation.InvalidInputException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The one contract every store provider passes: the whole domain (codes, devices, audit, rate limits) run
 * against a real store. A provider's test extends this class and says how to open a fresh store, how to
 * write a raw item, and how to list every stored item.
 *
 * <p>Expired items are deliberately left in the store (nothing here deletes them): the tests move the
 * clock past their ttl and show that every read and conditional write refuses them anyway.
 */
@ExtendWith(SkipReasonReporter.class)
public abstract class AbstractVerificationStoreContractTest {

    protected static final Instant START = Instant.parse("2026-11-30T10:00:00Z");
    private static final SecureRandom RANDOM = new SecureRandom();

    protected MutableClock clock;
    protected VerificationStore store;
    protected DevelopmentOutbox outbox;
    protected String keyBase64;
    protected SecretKeyRing keys;
    protected Verification verification;

    /** A new, empty store on its own table (or file). */
    protected abstract VerificationStore openStore(MutableClock clock);

    /** Writes an item exactly as given, bypassing every condition: for fixtures only. */
    protected abstract void putRawItem(Map<String, Object> item);

    /** Every item in the store, as attribute maps. */
    protected abstract List<Map<String, Object>> allRawItems();

    /**
     * The user index (GSI1) catches up with every write made so far. On DynamoDB it is eventually consistent and
     * the DynamoDB tests let it lag until this is called; a store without lag does nothing. Only listings (and
     * tests that show a rule holds also once the index caught up) call it: no rule may depend on it.
     */
    protected void indexCatchesUp() {
    }

    /** Empty when the engine runs TransactWriteItems; otherwise the reason tests of it are skipped. */
    protected Optional<String> missingTransactions() {
        return Optional.empty();
    }

    @BeforeEach
    void openFreshStore() {
        clock = new MutableClock(START);
        store = openStore(clock);
        outbox = new DevelopmentOutbox(clock);
        keyBase64 = SecretKeyRing.generateBase64Key(RANDOM);
        keys = SecretKeyRing.fromBase64(List.of(keyBase64));
        verification = build(keys, outbox, VerificationSettings.defaults());
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    /**
     * The domain on this store. Every provider runs device registration's transaction itself (dynalite through
     * the test proxy that emulates TransactWriteItems), so the domain gets the store as it is.
     */
    protected Verification build(SecretKeyRing ring, CodeSender sender, VerificationSettings settings) {
        return Verification.builder().store(store).keys(ring).sender(sender).clock(clock).settings(settings)
                .build();
    }

    // Helpers

    protected String sendEmailCode(String userId) {
        IssueResult result = verification.codes().issue(
                CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, userId + "@example.com"));
        assertThat(result).isInstanceOf(IssueResult.Issued.class);
        return latestCode();
    }

    protected String latestCode() {
        return outbox.messages().get(0).code();
    }

    protected VerificationResult verifyEmailCode(String userId, String code) {
        return verification.codes().verify(VerifyRequest.numeric(code, userId, CodeType.EMAIL_VERIFICATION));
    }

    protected static String wrongCode(String code) {
        return code.equals("000000") ? "111111" : "000000";
    }

    protected static FailureReason reasonOf(VerificationResult result) {
        assertThat(result).isInstanceOf(VerificationResult.Invalid.class);
        return ((VerificationResult.Invalid) result).reason();
    }

    protected List<AuditEventType> auditTypes(String userId) {
        return verification.audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(100), Optional.empty())
                .entries().stream().map(AuditEntry::eventType).toList();
    }

    protected RegisteredDevice registerDevice(String userId, String deviceId) {
        return verification.devices().register(new DeviceRegistration(userId, deviceId, "IOS",
                Optional.of("Jane's iPhone"), Optional.of("push-token-1"), ClientContext.of("203.0.113.9", "Safari", null)));
    }

    // Codes

    @Test
    void aNumericCodeVerifiesOnceAndThenIsUsed() {
        String code = sendEmailCode("alice");

        assertThat(code).matches("[0-9]{6}");
        VerificationResult first = verifyEmailCode("alice", code);
        // A used code has no validity left to report.
        assertThat(first).isEqualTo(new VerificationResult.Valid("alice", CodeType.EMAIL_VERIFICATION, Optional.empty()));
        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.USED);
        assertThat(auditTypes("alice")).containsExactly(AuditEventType.CODE_VERIFICATION_FAILED,
                AuditEventType.CODE_VERIFIED, AuditEventType.CODE_SENT);
    }

    @Test
    void checkDoesNotConsume() {
        String code = sendEmailCode("alice");
        VerifyRequest request = VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION);

        assertThat(verification.codes().check(request).valid()).isTrue();
        assertThat(verification.codes().check(request).valid()).isTrue();
        assertThat(verification.codes().verify(request).valid()).isTrue();
        assertThat(reasonOf(verification.codes().check(request))).isEqualTo(FailureReason.USED);
    }

    @Test
    void aCodeOneSecondPastItsTtlIsExpiredThoughStillStored() {
        String code = sendEmailCode("alice");
        VerifyRequest request = VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION);

        clock.advance(Duration.ofMinutes(15).minusSeconds(1));
        assertThat(verification.codes().check(request).valid()).isTrue();

        clock.advance(Duration.ofSeconds(2));
        assertThat(reasonOf(verification.codes().check(request))).isEqualTo(FailureReason.EXPIRED);
        assertThat(reasonOf(verification.codes().verify(request))).isEqualTo(FailureReason.EXPIRED);
        // EXPIRED (not NOT_FOUND) proves the item is still there, and it was not consumed either:
        assertThat(allRawItems()).anySatisfy(item -> {
            assertThat(item.get("codeType")).isEqualTo("EMAIL_VERIFICATION");
            assertThat(item.get("isUsed")).isEqualTo(false);
        });
    }

    @Test
    void aCodeExactlyAtItsTtlSecondIsExpired() {
        String code = sendEmailCode("alice");
        clock.advance(Duration.ofMinutes(15));

        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.EXPIRED);
    }

    @Test
    void aNewCodeInvalidatesTheUsersEarlierCodesOfThatTypeOnly() {
        String first = sendEmailCode("alice");
        verification.codes().issue(CodeRequest.of("alice", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+447700123456"));
        String phoneCode = latestCode();
        clock.advance(Duration.ofSeconds(30));
        String second = sendEmailCode("alice");

        assertThat(reasonOf(verifyEmailCode("alice", first))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("alice", second).valid()).isTrue();
        assertThat(verification.codes().verify(VerifyRequest.numeric(phoneCode, "alice", CodeType.PHONE_VERIFICATION))
                .valid()).isTrue();
        assertThat(auditTypes("alice")).contains(AuditEventType.CODES_INVALIDATED);
    }

    // No rule reads its own write through the user index (on DynamoDB, GSI1 is eventually consistent): the
    // DynamoDB tests run with an index that shows nothing until indexCatchesUp().

    @Test
    void ofTwoCodesSentBackToBackWithoutACooldownOnlyTheNewestVerifiesAlsoOnceTheIndexCaughtUp() {
        Verification noCooldown = build(keys, outbox, VerificationSettings.defaults().withResendCooldown(Duration.ZERO));
        CodeRequest request = CodeRequest.of("bea", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "bea@example.com");
        assertThat(noCooldown.codes().issue(request)).isInstanceOf(IssueResult.Issued.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(noCooldown.codes().issue(request)).isInstanceOf(IssueResult.Issued.class);
        String older = outbox.messages().get(1).code();
        String newest = outbox.messages().get(0).code();

        assertThat(reasonOf(noCooldown.codes().check(VerifyRequest.numeric(older, "bea", CodeType.EMAIL_VERIFICATION))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verifyEmailCode("bea", older))).isEqualTo(FailureReason.NOT_FOUND);
        indexCatchesUp();
        assertThat(reasonOf(verifyEmailCode("bea", older))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("bea", newest).valid()).isTrue();
    }

    @Test
    void ofTwoCodesSentInOneMillisecondTheLaterRequestsCodeIsTheOneThatVerifies() {
        Verification noCooldown = build(keys, outbox, VerificationSettings.defaults().withResendCooldown(Duration.ZERO));
        CodeRequest request = CodeRequest.of("bo", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "bo@example.com");
        for (int i = 0; i < 2; i++) {
            assertThat(noCooldown.codes().issue(request)).isInstanceOf(IssueResult.Issued.class);
        }

        assertThat(reasonOf(verifyEmailCode("bo", outbox.messages().get(1).code()))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("bo", outbox.messages().get(0).code()).valid()).isTrue();
    }

    @Test
    void codesTheOperatorInvalidatesRightAfterASendAreCountedAndNoLongerVerifyAlsoOnceTheIndexCaughtUp() {
        String code = sendEmailCode("cal");

        assertThat(verification.operator().invalidateCodes("cal", "key-9f", ClientContext.none())).isEqualTo(1);

        assertThat(reasonOf(verifyEmailCode("cal", code))).isEqualTo(FailureReason.NOT_FOUND);
        indexCatchesUp();
        assertThat(reasonOf(verifyEmailCode("cal", code))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification.operator().overview("cal").liveCodes()).isEmpty();
    }

    @Test
    void aLockOutRightAfterASendInvalidatesThatCodeSoLiftingTheLockOutDoesNotReviveIt() {
        String code = sendEmailCode("dee");
        for (int i = 0; i < 5; i++) {
            verifyEmailCode("dee", wrongCode(code));
        }
        verification.operator().liftRateLimit("dee", "VERIFY_EMAIL_VERIFICATION", "key-1a2b", ClientContext.none());

        assertThat(reasonOf(verifyEmailCode("dee", code))).isEqualTo(FailureReason.NOT_FOUND);
        indexCatchesUp();
        assertThat(reasonOf(verifyEmailCode("dee", code))).isEqualTo(FailureReason.NOT_FOUND);
    }

    @Test
    void aNumericCodeIsBoundToItsUserAndType() {
        String code = sendEmailCode("alice");

        assertThat(reasonOf(verifyEmailCode("bob", code))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verification.codes().verify(VerifyRequest.numeric(code, "alice", CodeType.PASSWORD_RESET))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("alice", code).valid()).isTrue();
    }

    @Test
    void aLinkCodeVerifiesByItselfAndOnlyForTheTypeItWasIssuedFor() {
        IssueResult issued = verification.codes().issue(
                CodeRequest.of("carol", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "carol@example.com"));
        assertThat(((IssueResult.Issued) issued).format()).isEqualTo(CodeFormat.LINK);
        String link = latestCode();
        assertThat(link).hasSize(43);

        VerificationResult wrongType = verification.codes().verify(
                new VerifyRequest(link, Optional.empty(), Optional.of(CodeType.EMAIL_VERIFICATION), ClientContext.none()));
        assertThat(reasonOf(wrongType)).isEqualTo(FailureReason.NOT_FOUND);

        VerificationResult valid = verification.codes().verify(VerifyRequest.link(link));
        assertThat(valid).isEqualTo(new VerificationResult.Valid("carol", CodeType.PASSWORD_RESET, Optional.empty()));
        assertThat(reasonOf(verification.codes().verify(VerifyRequest.link(link)))).isEqualTo(FailureReason.USED);
    }

    @Test
    void previousKeysStillVerifyAfterRotation() {
        String code = sendEmailCode("alice");
        String nextKey = SecretKeyRing.generateBase64Key(RANDOM);
        Verification rotated = build(SecretKeyRing.fromBase64(List.of(nextKey, keyBase64)), outbox,
                VerificationSettings.defaults());

        assertThat(rotated.codes().verify(VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION)).valid())
                .isTrue();

        clock.advance(Duration.ofSeconds(30));
        rotated.codes().issue(CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com"));
        String underNewKey = latestCode();
        assertThat(reasonOf(verifyEmailCode("alice", underNewKey))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(rotated.codes().verify(VerifyRequest.numeric(underNewKey, "alice", CodeType.EMAIL_VERIFICATION))
                .valid()).isTrue();
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
        IssueResult refused = verification.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));
        assertThat(refused).isInstanceOf(IssueResult.RateLimited.class);
        assertThat(((IssueResult.RateLimited) refused).action()).isEqualTo("VERIFY_EMAIL_VERIFICATION");
        // Another user and another type are untouched.
        assertThat(verifyEmailCode("bob", sendEmailCode("bob")).valid()).isTrue();

        // A live code may span two windows, so the failures count until they leave both: the lock-out ends when
        // the window after theirs ends, and not before.
        assertThat(((IssueResult.RateLimited) refused).resetsAt()).isEqualTo(START.plus(Duration.ofMinutes(30)));
        clock.advance(Duration.ofMinutes(15));
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        clock.advance(Duration.ofMinutes(15));
        String fresh = sendEmailCode("alice");
        assertThat(verifyEmailCode("alice", fresh).valid()).isTrue();
    }

    @Test
    void ofSixtySimultaneousWrongGuessesOnlyTheFirstFiveAreTested() throws Exception {
        String code = sendEmailCode("alice");

        List<VerificationResult> results = runConcurrently(60, () -> verifyEmailCode("alice", wrongCode(code)));

        // Places 1-4 are tested and miss; place 5 is tested, misses and starts the lock-out; 6-60 are never tested.
        assertThat(results).extracting(AbstractVerificationStoreContractTest::reasonOf)
                .filteredOn(reason -> reason == FailureReason.NOT_FOUND).hasSize(4);
        assertThat(results).extracting(AbstractVerificationStoreContractTest::reasonOf)
                .filteredOn(reason -> reason == FailureReason.TOO_MANY_ATTEMPTS).hasSize(56);
    }

    @Test
    void aCorrectCodeIsRefusedWhileTheUserIsLockedOut() {
        String code = sendEmailCode("alice");
        // Five failures counted elsewhere (for example on another instance) while this code survived.
        for (int i = 0; i < 5; i++) {
            verification.rateLimiter().acquire("alice", "VERIFY_EMAIL_VERIFICATION", VerificationSettings.DEFAULT_VERIFY_LIMIT);
        }

        assertThat(reasonOf(verification.codes().check(
                VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
    }

    @Test
    void aSuccessGivesItsAttemptBack() {
        String code = sendEmailCode("alice");
        for (int failure = 1; failure <= 4; failure++) {
            verifyEmailCode("alice", wrongCode(code));
        }
        assertThat(verification.codes().check(VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION)).valid())
                .isTrue();
        assertThat(verifyEmailCode("alice", code).valid()).isTrue();

        assertThat(verification.codes().rateLimits("alice"))
                .filteredOn(limit -> limit.action().equals("VERIFY_EMAIL_VERIFICATION"))
                .extracting(RateLimitDecision::count).containsExactly(4L);
    }

    @Test
    void theRightCodePresentedAgainAfterItsUseIsUsedAndNeverALockOut() {
        String code = sendEmailCode("uma");
        assertThat(verifyEmailCode("uma", code).valid()).isTrue();

        for (int again = 1; again <= 10; again++) {
            assertThat(reasonOf(verifyEmailCode("uma", code))).as("verify again #" + again).isEqualTo(FailureReason.USED);
            assertThat(reasonOf(verification.codes().check(VerifyRequest.numeric(code, "uma",
                    CodeType.EMAIL_VERIFICATION)))).as("check again #" + again).isEqualTo(FailureReason.USED);
        }

        // Not one of them counts as a wrong guess; wrong guesses still do, and lock out at the fifth.
        assertThat(verification.codes().rateLimits("uma")).filteredOn(limit -> limit.action().equals(
                "VERIFY_EMAIL_VERIFICATION")).extracting(RateLimitDecision::count).containsExactly(0L);
        for (int guess = 1; guess <= 4; guess++) {
            assertThat(reasonOf(verifyEmailCode("uma", wrongCode(code)))).isEqualTo(FailureReason.NOT_FOUND);
            assertThat(reasonOf(verifyEmailCode("uma", code))).as("between the guesses").isEqualTo(FailureReason.USED);
        }
        assertThat(reasonOf(verifyEmailCode("uma", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(reasonOf(verifyEmailCode("uma", code))).as("locked out: untested").isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        clock.advance(Duration.ofSeconds(30));
        assertThat(verification.codes().issue(CodeRequest.of("uma", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "uma@example.com"))).isInstanceOf(IssueResult.RateLimited.class);
    }

    @Test
    void ofTwentySimultaneousVerificationsOfTheRightNumericCodeOneIsValidAndNoneLocksOut() throws Exception {
        String code = sendEmailCode("abe");

        List<VerificationResult> results = runConcurrently(20, () -> verifyEmailCode("abe", code));

        assertThat(results).filteredOn(VerificationResult::valid).hasSize(1);
        // The others are USED, or TOO_MANY_ATTEMPTS untested while five places were in flight; none of them stays
        // counted, and the user is not locked out.
        assertThat(results).filteredOn(result -> !result.valid()).extracting(AbstractVerificationStoreContractTest::reasonOf)
                .hasSize(19).containsAnyOf(FailureReason.USED).doesNotContain(FailureReason.NOT_FOUND);
        assertThat(verification.codes().rateLimits("abe")).filteredOn(limit -> limit.action().equals(
                "VERIFY_EMAIL_VERIFICATION")).extracting(RateLimitDecision::count).containsExactly(0L);
        clock.advance(Duration.ofSeconds(30));
        assertThat(verifyEmailCode("abe", sendEmailCode("abe")).valid()).isTrue();
    }

    @Test
    void aFailedCheckCountsLikeAFailedVerification() {
        String code = sendEmailCode("alice");
        VerifyRequest wrong = VerifyRequest.numeric(wrongCode(code), "alice", CodeType.EMAIL_VERIFICATION);
        for (int failure = 1; failure <= 4; failure++) {
            verification.codes().check(wrong);
        }
        assertThat(reasonOf(verification.codes().check(wrong))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
    }

    @Test
    void aNewCodeDoesNotResetTheFailureCount() {
        String code = sendEmailCode("alice");
        for (int failure = 1; failure <= 3; failure++) {
            verifyEmailCode("alice", wrongCode(code));
        }
        clock.advance(Duration.ofSeconds(30));
        String next = sendEmailCode("alice");
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(next)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verifyEmailCode("alice", wrongCode(next)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
    }

    @Test
    void theSixthCodeRequestInAWindowIsRateLimited() {
        for (int request = 1; request <= 5; request++) {
            sendEmailCode("alice");
            clock.advance(Duration.ofSeconds(30));
        }
        clock.advance(Duration.ofMinutes(2).plusSeconds(30));
        IssueResult sixth = verification.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));

        assertThat(sixth).isInstanceOf(IssueResult.RateLimited.class);
        IssueResult.RateLimited limited = (IssueResult.RateLimited) sixth;
        assertThat(limited.action()).isEqualTo("SEND_EMAIL_VERIFICATION");
        assertThat(limited.resetsAt()).isEqualTo(START.plus(Duration.ofMinutes(15)));
        assertThat(limited.retryAfterSeconds()).isEqualTo(600);
        assertThat(auditTypes("alice")).first().isEqualTo(AuditEventType.RATE_LIMITED);

        clock.advance(Duration.ofMinutes(10));
        // A new window for the user's requests; the address itself has had its five for this hour.
        IssueResult sameAddress = verification.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));
        assertThat(sameAddress).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("SEND_TO_TARGET"));
        assertThat(verification.codes().issue(CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "alice.work@example.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aFailedDeliveryInvalidatesTheCodeAndIsAudited() {
        RecordingFailingSender down = new RecordingFailingSender();
        Verification failing = build(keys, down, VerificationSettings.defaults());

        IssueResult result = failing.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));

        assertThat(result).isInstanceOf(IssueResult.DeliveryFailed.class);
        String attempted = down.attempted.get(0).code();
        assertThat(reasonOf(verifyEmailCode("alice", attempted))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(auditTypes("alice")).contains(AuditEventType.CODE_DELIVERY_FAILED)
                .doesNotContain(AuditEventType.CODE_SENT);
    }

    @Test
    void aChannelThatThrowsUncheckedStillInvalidatesTheCode() {
        List<String> attempted = new ArrayList<>();
        Verification failing = build(keys, message -> {
            attempted.add(message.code());
            throw new IllegalStateException("SNS throttled the request for " + message.deliveryTarget());
        }, VerificationSettings.defaults());

        IssueResult result = failing.codes().issue(
                CodeRequest.of("alice", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+447700123456"));

        assertThat(result).isEqualTo(new IssueResult.DeliveryFailed(DeliveryMethod.SMS, "+44******3456"));
        assertThat(reasonOf(verification.codes().verify(
                VerifyRequest.numeric(attempted.get(0), "alice", CodeType.PHONE_VERIFICATION)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(allRawItems().toString()).doesNotContain("+447700123456");
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndWritesNothing() {
        assertField(() -> verification.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.SMS, "+447700123456")), "deliveryMethod");
        assertField(() -> verification.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "not-an-address")), "deliveryTarget");
        assertField(() -> verification.codes().issue(
                CodeRequest.of("alice", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "01234 567890")), "deliveryTarget");
        assertField(() -> verification.codes().issue(
                CodeRequest.of("USER#bob", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com")), "userId");
        assertField(() -> verification.codes().verify(
                new VerifyRequest("123456", Optional.empty(), Optional.of(CodeType.EMAIL_VERIFICATION), ClientContext.none())),
                "userId");
        assertField(() -> verification.codes().verify(
                new VerifyRequest("123456", Optional.of("alice"), Optional.empty(), ClientContext.none())), "codeType");
        assertField(() -> verification.codes().verify(VerifyRequest.numeric("12ab", "alice", CodeType.EMAIL_VERIFICATION)),
                "code");
        assertField(() -> verification.devices().register(DeviceRegistration.of("alice", "phone#1", "IOS")), "deviceId");
        assertField(() -> verification.devices().verify("phone-1", "short", ClientContext.none()), "secret");
        assertField(() -> verification.audit().query("alice", Optional.empty(), Optional.empty(), Optional.of(101),
                Optional.empty()), "limit");
        assertField(() -> verification.audit().query("alice", Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of("bm90LWEtY3Vyc29y")), "cursor");
        assertField(() -> verification.audit().query("alice", Optional.empty(),
                Optional.of(Instant.parse("+10000-01-01T00:00:00Z")), Optional.empty(), Optional.empty()), "to");
        assertField(() -> verification.audit().query("alice", Optional.of(START), Optional.of(START.minusSeconds(1)),
                Optional.empty(), Optional.empty()), "from");
        assertField(() -> verification.codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com")
                        .withClient(new ClientContext(Optional.of("x".repeat(500_000)), Optional.empty(), Optional.empty()))),
                "ipAddress");
        assertField(() -> ClientContext.of(null, "agent\u0000", null), "userAgent");
        assertField(() -> ClientContext.of(null, null, "a#b"), "deviceId");

        assertThat(allRawItems()).isEmpty();
    }

    /**
     * The form of what a person reads is the core's rule, not the server's: an application that calls the core
     * directly meets it too. A bidi override in a context ("Pay \u202e0.01 EUR" shows as "Pay RUE 10.0") or a
     * device name is refused before anything is written; the user agent, only recorded, keeps it as an escape.
     */
    @Test
    void anEmbeddingApplicationCannotSkipTheRefusalOfBidiOverridesInWhatAPersonReads() {
        CodeRequest send = CodeRequest.of("ivy", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "ivy@example.com");
        for (String context : List.of("Pay \u202e0.01 EUR", "Pay \u2066120\u2069 EUR", "Pay\u200b 120 EUR",
                "\ufeffPay 120 EUR", "Pay \u200f120 EUR", "Pay \u061c120 EUR")) {
            assertField(() -> verification.codes().issue(send.withContext(context)), "context");
            assertField(() -> verification.codes().verify(VerifyRequest.numeric("123456", "ivy",
                    CodeType.EMAIL_VERIFICATION).withContext(context)), "context");
            assertField(() -> verification.codes().check(VerifyRequest.numeric("123456", "ivy",
                    CodeType.EMAIL_VERIFICATION).withContext(context)), "context");
        }
        assertField(() -> verification.devices().register(new DeviceRegistration("ivy", "pc-1", "WEB",
                Optional.of("Laptop \u202egnp.exe"), Optional.empty(), ClientContext.none())), "deviceName");
        assertThat(outbox.messages()).isEmpty();
        assertThat(allRawItems()).as("nothing written, not even a failed attempt").isEmpty();

        // Joiners move no text and emoji need them; the user agent is recorded with the override made visible.
        assertThat(verification.codes().issue(send.withContext("Pay 12 EUR for \ud83d\udc68\u200d\ud83d\udc69"
                + "\u200d\ud83d\udc67 tickets").withClient(ClientContext.of(null, "Agent \u202eevil", null))))
                .isInstanceOf(IssueResult.Issued.class);
        assertThat(verification.audit().query("ivy", Optional.empty(), Optional.empty(), Optional.of(10),
                Optional.empty()).entries()).extracting(entry -> entry.userAgent().orElseThrow())
                .containsExactly("Agent <U+202E>evil");
    }

    private static void assertField(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void noCodeSecretOrFullTargetIsEverStored() {
        String code = sendEmailCode("alice");
        verification.codes().issue(CodeRequest.of("alice", CodeType.PASSWORD_RESET, DeliveryMethod.SMS, "+447700123456"));
        String link = latestCode();
        RegisteredDevice device = registerDevice("alice", "phone-1");
        verifyEmailCode("alice", code);

        String everything = allRawItems().toString();
        assertThat(everything).doesNotContain(link, device.secret(), "alice@example.com", "+447700123456")
                .contains("a***@example.com", "+44******3456");
        // Every text value, inside maps too, is free of the numeric code (numbers such as ttl are not text).
        List<String> texts = new ArrayList<>();
        for (Map<String, Object> item : allRawItems()) {
            for (Object value : item.values()) {
                if (value instanceof String text) {
                    texts.add(text);
                } else if (value instanceof Map<?, ?> map) {
                    map.values().forEach(entry -> texts.add(String.valueOf(entry)));
                }
            }
        }
        assertThat(texts).isNotEmpty().noneSatisfy(text -> assertThat(text).contains(code));
    }

    // Devices

    @Test
    void registeringADeviceWritesTheTokenAndItsAuditEntryInOneTransaction() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        RegisteredDevice device = registerDevice("dave", "laptop-1");

        indexCatchesUp();
        assertThat(verification.devices().list("dave")).singleElement().satisfies(token -> {
            assertThat(token.deviceId()).isEqualTo("laptop-1");
            assertThat(token.tokenId()).isEqualTo(device.tokenId());
            assertThat(token.deviceName()).contains("Jane's iPhone");
        });
        assertThat(auditTypes("dave")).containsExactly(AuditEventType.DEVICE_ADDED);
    }

    @Test
    void aRefusedRegistrationLeavesNeitherTokenNorAuditEntry() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        AuditEntry taken = verification.audit().recordSuccess("dave", AuditEventType.CODE_SENT, Map.of(),
                ClientContext.none());
        DeviceToken token = new DeviceToken("laptop-1", "token-digest", "dave", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        AuditEntry sameKey = new AuditEntry("dave", taken.timestamp(), taken.entryId(), AuditEventType.DEVICE_ADDED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.of("laptop-1"), true, Optional.empty(),
                Optional.empty());

        assertThatThrownBy(() -> store.registerDevice(token, sameKey)).isInstanceOf(StoreException.class)
                .hasMessageContaining("nothing was written");
        assertThat(store.findDevices("dave", START)).isEmpty();
        assertThat(auditTypes("dave")).containsExactly(AuditEventType.CODE_SENT);
    }

    @Test
    void aDeviceVerifiedUnderAPreviousKeyMovesToTheCurrentKeySoTheOldKeyCanBeRetired() {
        RegisteredDevice device = registerDevice("kai", "tablet-1");
        clock.advance(Duration.ofSeconds(1));
        String nextKey = SecretKeyRing.generateBase64Key(RANDOM);
        Verification rotated = build(SecretKeyRing.fromBase64(List.of(nextKey, keyBase64)), outbox,
                VerificationSettings.defaults());

        DeviceVerification used = rotated.devices().verify("tablet-1", device.secret(), ClientContext.none());

        assertThat(used.valid()).isTrue();
        assertThat(store.findDevice("tablet-1", device.tokenId())).as("gone from the old key").isEmpty();
        indexCatchesUp();
        assertThat(rotated.devices().list("kai")).singleElement()
                .satisfies(token -> assertThat(token.tokenId()).isNotEqualTo(device.tokenId()));
        clock.advance(Duration.ofSeconds(1));
        Verification retired = build(SecretKeyRing.fromBase64(List.of(nextKey)), outbox, VerificationSettings.defaults());
        assertThat(retired.devices().verify("tablet-1", device.secret(), ClientContext.none()).valid())
                .as("valid with the old key retired").isTrue();
        assertThat(auditTypes("kai")).containsExactly(AuditEventType.DEVICE_VERIFIED, AuditEventType.DEVICE_VERIFIED,
                AuditEventType.DEVICE_ADDED);
    }

    @Test
    void aDeviceInRegularUseStillExpiresAtItsMaximumLife() {
        Verification capped = build(keys, outbox, VerificationSettings.defaults().withDeviceMaxLife(Duration.ofDays(40)));
        RegisteredDevice device = capped.devices().register(new DeviceRegistration("lia", "phone-9", "IOS",
                Optional.empty(), Optional.empty(), ClientContext.none()));

        clock.advance(Duration.ofDays(20));
        DeviceVerification day20 = capped.devices().verify("phone-9", device.secret(), ClientContext.none());
        assertThat(day20).isEqualTo(new DeviceVerification.Valid("lia", "phone-9", START.plus(Duration.ofDays(40))));
        clock.advance(Duration.ofDays(20));
        assertThat(capped.devices().verify("phone-9", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.EXPIRED));
        assertThat(capped.devices().list("lia")).isEmpty();
    }

    @Test
    void aTokenThatEscapedRevokeAllThroughTheIndexIsStillRefused() {
        RegisteredDevice device = registerDevice("mo", "laptop-7");
        // The user index has not caught up with the token yet (GSI1 is eventually consistent on DynamoDB):
        // revoke-all's deletion finds nothing.
        VerificationStore lagging = (VerificationStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {VerificationStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("deleteDevices")) {
                        return List.of();
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Verification withLaggingIndex = Verification.builder().store(lagging).keys(keys).sender(outbox).clock(clock).build();

        withLaggingIndex.devices().revokeAll("mo", ClientContext.none());

        assertThat(store.findDevice("laptop-7", device.tokenId())).as("still stored").isPresent();
        assertThat(verification.devices().verify("laptop-7", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND));
        clock.advance(Duration.ofMillis(1));
        RegisteredDevice after = registerDevice("mo", "laptop-8");
        assertThat(verification.devices().verify("laptop-8", after.secret(), ClientContext.none()).valid())
                .as("a device registered after the revoke-all works").isTrue();
    }

    @Test
    void noRegistrationRacingARevokeAllEscapesIt() throws Exception {
        AtomicInteger devices = new AtomicInteger();
        CountDownLatch revoked = new CountDownLatch(1);
        List<Object> results = runConcurrently(24, () -> {
            int n = devices.incrementAndGet();
            if (n == 12) {
                verification.devices().revokeAll("ray", ClientContext.none());
                revoked.countDown();
                return "revoked";
            }
            return verification.devices().register(new DeviceRegistration("ray", "race-" + n, "WEB", Optional.empty(),
                    Optional.empty(), ClientContext.none()));
        });
        assertThat(revoked.await(10, TimeUnit.SECONDS)).isTrue();

        // Every registration happened before or during the revoke-all (one instant on this clock): none may work.
        for (Object result : results) {
            if (result instanceof RegisteredDevice device) {
                assertThat(verification.devices().verify(device.deviceId(), device.secret(), ClientContext.none()).valid())
                        .as(device.deviceId()).isFalse();
            }
        }
        assertThat(verification.devices().list("ray")).isEmpty();
    }

    @Test
    void aRememberedDeviceVerifiesAndItsExpirySlides() {
        RegisteredDevice device = registerDevice("dave", "laptop-1");
        assertThat(device.expiresAt()).isEqualTo(START.plus(Duration.ofDays(30)));

        clock.advance(Duration.ofDays(29));
        DeviceVerification first = verification.devices().verify("laptop-1", device.secret(), ClientContext.none());
        assertThat(first).isEqualTo(new DeviceVerification.Valid("dave", "laptop-1", START.plus(Duration.ofDays(59))));

        clock.advance(Duration.ofDays(29));
        assertThat(verification.devices().verify("laptop-1", device.secret(), ClientContext.none()).valid()).isTrue();
        indexCatchesUp();
        assertThat(verification.devices().list("dave")).singleElement()
                .satisfies(token -> assertThat(token.lastActiveAt()).isEqualTo(START.plus(Duration.ofDays(58))));
        assertThat(auditTypes("dave")).startsWith(AuditEventType.DEVICE_VERIFIED, AuditEventType.DEVICE_VERIFIED);
    }

    @Test
    void anExpiredDeviceSecretDoesNotVerifyAndIsNotListedThoughStillStored() {
        RegisteredDevice device = registerDevice("dave", "laptop-1");
        clock.advance(Duration.ofDays(30).plusSeconds(1));

        assertThat(verification.devices().verify("laptop-1", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.EXPIRED));
        assertThat(verification.devices().list("dave")).isEmpty();
        assertThat(allRawItems()).anySatisfy(item -> assertThat(item.get("tokenId")).isEqualTo(device.tokenId()));
    }

    @Test
    void aWrongSecretOrAnotherDevicesSecretIsNotFound() {
        RegisteredDevice device = registerDevice("dave", "laptop-1");
        registerDevice("dave", "phone-1");

        assertThat(verification.devices().verify("phone-1", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND));
        assertThat(verification.devices().verify("laptop-1", "A".repeat(43), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND));
    }

    @Test
    void revokingOneDeviceLeavesTheOthersAndOtherUsers() {
        RegisteredDevice laptop = registerDevice("dave", "laptop-1");
        registerDevice("dave", "laptop-10");
        registerDevice("erin", "laptop-1");

        assertThat(verification.devices().revoke("dave", "laptop-1", ClientContext.none())).isEqualTo(1);

        indexCatchesUp();
        assertThat(verification.devices().list("dave")).extracting(DeviceToken::deviceId).containsExactly("laptop-10");
        assertThat(verification.devices().list("erin")).hasSize(1);
        assertThat(verification.devices().verify("laptop-1", laptop.secret(), ClientContext.none()).valid()).isFalse();
        assertThat(auditTypes("dave")).first().isEqualTo(AuditEventType.DEVICE_REVOKED);
    }

    @Test
    void aDeviceRevokedRightAfterItsRegistrationIsCountedAndNoLongerVerifiesAlsoOnceTheIndexCaughtUp() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        RegisteredDevice device = registerDevice("eve", "tablet-1");

        assertThat(verification.devices().revoke("eve", "tablet-1", ClientContext.none())).isEqualTo(1);

        assertThat(verification.devices().verify("tablet-1", device.secret(), ClientContext.none()).valid()).isFalse();
        indexCatchesUp();
        assertThat(verification.devices().verify("tablet-1", device.secret(), ClientContext.none()).valid()).isFalse();
        assertThat(verification.devices().list("eve")).isEmpty();
    }

    @Test
    void revokingAllDevicesDeletesMoreThanOneBatchAndAuditsTheCount() {
        for (int i = 0; i < 30; i++) {
            registerDevice("dave", "device-" + i);
        }
        registerDevice("erin", "device-0");
        indexCatchesUp();

        assertThat(verification.devices().revokeAll("dave", ClientContext.none())).isEqualTo(30);

        assertThat(verification.devices().list("dave")).isEmpty();
        assertThat(verification.devices().list("erin")).hasSize(1);
        AuditEntry revoked = verification.audit().query("dave", Optional.empty(), Optional.empty(), Optional.of(1),
                Optional.empty()).entries().get(0);
        assertThat(revoked.eventType()).isEqualTo(AuditEventType.DEVICES_REVOKED);
        assertThat(revoked.details()).containsEntry("count", "30");
    }

    // Audit

    @Test
    void auditHistoryIsNewestFirstAndPagesWithACursor() {
        for (int i = 0; i < 7; i++) {
            verification.audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of("n", Integer.toString(i)),
                    ClientContext.none());
            clock.advance(Duration.ofSeconds(1));
        }
        List<String> seen = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        List<Integer> pageSizes = new ArrayList<>();
        do {
            AuditPage page = verification.audit().query("fay", Optional.empty(), Optional.empty(), Optional.of(3), cursor);
            pageSizes.add(page.entries().size());
            page.entries().forEach(entry -> seen.add(entry.details().get("n")));
            cursor = page.nextCursor();
        } while (cursor.isPresent());

        assertThat(pageSizes).containsExactly(3, 3, 1);
        assertThat(seen).containsExactly("6", "5", "4", "3", "2", "1", "0");
    }

    @Test
    void aCursorOutsideTheQueriedRangeIsRefusedOrEndsThePage() {
        for (int i = 0; i < 4; i++) {
            verification.audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());
            clock.advance(Duration.ofMinutes(1));
        }
        String cursor = verification.audit().query("fay", Optional.empty(), Optional.empty(), Optional.of(1),
                Optional.empty()).nextCursor().orElseThrow();

        assertField(() -> verification.audit().query("fay", Optional.empty(), Optional.of(START), Optional.of(1),
                Optional.of(cursor)), "cursor");
        assertThat(verification.audit().query("fay", Optional.of(START.plus(Duration.ofMinutes(10))),
                Optional.of(START.plus(Duration.ofMinutes(20))), Optional.of(1), Optional.of(cursor)).entries()).isEmpty();
        assertThat(verification.audit().query("fay", Optional.empty(), Optional.empty(), Optional.of(10),
                Optional.of(cursor)).entries()).hasSize(3);
    }

    @Test
    void auditHistoryHonoursTheTimeRange() {
        for (int i = 0; i < 5; i++) {
            verification.audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of("n", Integer.toString(i)),
                    ClientContext.none());
            clock.advance(Duration.ofMinutes(1));
        }
        AuditPage page = verification.audit().query("fay", Optional.of(START.plus(Duration.ofMinutes(1))),
                Optional.of(START.plus(Duration.ofMinutes(3))), Optional.empty(), Optional.empty());

        assertThat(page.entries()).extracting(entry -> entry.details().get("n")).containsExactly("3", "2", "1");
        assertThat(page.nextCursor()).isEmpty();
    }

    @Test
    void auditEntriesPastRetentionAreNotListedThoughStillStored() {
        verification.audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());
        clock.advance(Duration.ofDays(90).minusSeconds(1));
        assertThat(auditTypes("fay")).hasSize(1);

        clock.advance(Duration.ofSeconds(1));
        assertThat(auditTypes("fay")).isEmpty();
        assertThat(allRawItems()).hasSize(1);
    }

    @Test
    void aPageIsFilledPastEntriesThatExpiredBeforeItsOlderOnes() {
        // Older entries kept 90 days, then newer ones kept a day: two days later the newest ten have expired while
        // the five below them have not. A page must reach past the expired ones (on DynamoDB the filter runs after
        // the Limit, so the store has to follow the query's pages).
        Verification shortRetention = build(keys, outbox, VerificationSettings.defaults()
                .withAuditRetention(Optional.of(Duration.ofDays(1))));
        for (int i = 0; i < 5; i++) {
            verification.audit().recordSuccess("gil", AuditEventType.CODE_SENT, Map.of("n", "kept-" + i),
                    ClientContext.none());
            clock.advance(Duration.ofSeconds(1));
        }
        for (int i = 0; i < 10; i++) {
            shortRetention.audit().recordSuccess("gil", AuditEventType.CODE_VERIFIED, Map.of("n", "gone-" + i),
                    ClientContext.none());
            clock.advance(Duration.ofSeconds(1));
        }
        clock.advance(Duration.ofDays(2));

        AuditPage page = verification.audit().query("gil", Optional.empty(), Optional.empty(), Optional.of(2),
                Optional.empty());

        assertThat(page.entries()).extracting(entry -> entry.details().get("n")).containsExactly("kept-4", "kept-3");
        assertThat(page.nextCursor()).isPresent();
        assertThat(allRawItems()).hasSize(15);
    }

    @Test
    void foreverRetentionWritesNoTtlAndKeepsEntries() {
        Verification forever = build(keys, outbox, VerificationSettings.defaults().withAuditRetention(Optional.empty()));
        forever.audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());

        assertThat(allRawItems()).singleElement().satisfies(item -> assertThat(item).doesNotContainKey("ttl"));
        clock.advance(Duration.ofDays(3650));
        assertThat(auditTypes("fay")).containsExactly(AuditEventType.CODE_SENT);
    }

    @Test
    void auditEntriesCarryTheClientContextAndMaskedTargets() {
        verification.codes().issue(CodeRequest.of("gus", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+447700123456")
                .withClient(ClientContext.of("2001:db8::1", "curl/8", "phone-1")));

        AuditEntry sent = verification.audit().query("gus", Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()).entries().get(0);
        assertThat(sent.eventType()).isEqualTo(AuditEventType.CODE_SENT);
        assertThat(sent.ipAddress()).contains("2001:db8::1");
        assertThat(sent.userAgent()).contains("curl/8");
        assertThat(sent.deviceId()).contains("phone-1");
        assertThat(sent.success()).isTrue();
        assertThat(sent.details()).containsEntry("deliveryTarget", "+44******3456").containsEntry("codeType",
                "PHONE_VERIFICATION");
    }

    // Rate limits

    @Test
    void rateLimitStateListsEveryActionsCurrentWindow() {
        sendEmailCode("hal");
        clock.advance(Duration.ofSeconds(30));
        sendEmailCode("hal");
        verifyEmailCode("hal", "000000");

        List<RateLimitDecision> limits = verification.codes().rateLimits("hal");
        assertThat(limits).hasSize(6);
        assertThat(limits).filteredOn(limit -> limit.action().equals("SEND_EMAIL_VERIFICATION")).singleElement()
                .satisfies(limit -> {
                    assertThat(limit.count()).isEqualTo(2);
                    assertThat(limit.limit()).isEqualTo(5);
                    assertThat(limit.resetsAt()).isEqualTo(START.plus(Duration.ofMinutes(15)));
                });
        assertThat(limits).filteredOn(limit -> limit.action().equals("VERIFY_EMAIL_VERIFICATION"))
                .extracting(RateLimitDecision::count).containsExactly(1L);

        clock.advance(Duration.ofMinutes(15));
        assertThat(verification.codes().rateLimits("hal")).filteredOn(limit -> limit.action().startsWith("SEND_"))
                .extracting(RateLimitDecision::count).containsOnly(0L);
        // A failure counts over the windows a live code may span: the one it happened in and the next.
        assertThat(verification.codes().rateLimits("hal")).filteredOn(limit -> limit.action().equals(
                "VERIFY_EMAIL_VERIFICATION")).extracting(RateLimitDecision::count).containsExactly(1L);
        clock.advance(Duration.ofMinutes(15));
        assertThat(verification.codes().rateLimits("hal")).extracting(RateLimitDecision::count).containsOnly(0L);
    }

    // Concurrency

    @Test
    void ofFiftyConcurrentVerificationsOfOneCodeExactlyOneSucceeds() throws Exception {
        // A LINK code: its attempts are not counted, so all fifty race for the one conditional write.
        verification.codes().issue(CodeRequest.of("ivy", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "ivy@example.com"));
        String link = latestCode();

        List<VerificationResult> results = runConcurrently(50, () -> verification.codes().verify(VerifyRequest.link(link)));

        assertThat(results).filteredOn(VerificationResult::valid).hasSize(1);
        assertThat(results).filteredOn(result -> !result.valid()).extracting(AbstractVerificationStoreContractTest::reasonOf)
                .hasSize(49).containsOnly(FailureReason.USED);
    }

    @Test
    void simultaneousCodeRequestsLeaveExactlyOneLiveCode() throws Exception {
        // Limits high enough that neither the eight requests nor checking their eight codes hits one.
        // No cooldown: it would (rightly) let only one of the eight through, and this is about the other race.
        VerificationSettings generous = VerificationSettings.defaults()
                .withSendLimit(new RateLimitPolicy(50, Duration.ofMinutes(15)))
                .withVerifyLimit(new RateLimitPolicy(50, Duration.ofMinutes(15)))
                .withTargetLimit(new RateLimitPolicy(50, Duration.ofHours(1)))
                .withResendCooldown(Duration.ZERO);
        Verification service = build(keys, outbox, generous);

        List<IssueResult> results = runConcurrently(8, () -> service.codes().issue(
                CodeRequest.of("joy", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "joy@example.com")));

        assertThat(results).as("all eight were issued and delivered").hasSize(8)
                .allSatisfy(result -> assertThat(result).isInstanceOf(IssueResult.Issued.class));
        assertThat(outbox.messages()).hasSize(8);
        assertThat(allRawItems()).filteredOn(item -> "joy".equals(item.get("userId")) && item.containsKey("codeType"))
                .hasSize(1);
        long working = outbox.messages().stream()
                .filter(message -> service.codes().check(VerifyRequest.numeric(message.code(), "joy",
                        CodeType.EMAIL_VERIFICATION)).valid())
                .count();
        assertThat(working).isEqualTo(1);
    }

    @Test
    void aLimitOfFiveLetsExactlyFiveOfFortySimultaneousRequestsThrough() throws Exception {
        RateLimitPolicy policy = new RateLimitPolicy(5, Duration.ofMinutes(15));

        List<RateLimitDecision> decisions = runConcurrently(40,
                () -> verification.rateLimiter().acquire("jon", "SEND_EMAIL_VERIFICATION", policy));

        assertThat(decisions).filteredOn(RateLimitDecision::allowed).extracting(RateLimitDecision::count)
                .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        // Past the limit nothing is counted: every refused attempt is told it would be the sixth.
        assertThat(decisions).filteredOn(decision -> !decision.allowed()).hasSize(35)
                .allSatisfy(decision -> assertThat(decision.count()).isEqualTo(6));
        assertThat(verification.rateLimiter().current("jon", "SEND_EMAIL_VERIFICATION", policy).count()).isEqualTo(5);
    }

    // Messages and what a code approves: contract §13

    @Test
    void aNumericCodeSentForAPaymentVerifiesOnlyForThatPaymentAndTheTextIsNeverStored() {
        IssueResult sent = verification.codes().issue(CodeRequest.of("pia", CodeType.PHONE_VERIFICATION,
                DeliveryMethod.SMS, "+447700123498").withContext("Pay 120.00 EUR to ACME"));
        assertThat(sent).isInstanceOf(IssueResult.Issued.class);
        String code = latestCode();
        assertThat(outbox.messages().get(0).context()).contains("Pay 120.00 EUR to ACME");
        VerifyRequest plain = VerifyRequest.numeric(code, "pia", CodeType.PHONE_VERIFICATION);

        assertThat(reasonOf(verification.codes().check(plain))).as("without the context").isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verification.codes().check(plain.withContext("Pay 920.00 EUR to ACME"))))
                .as("for another payment").isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification.codes().verify(plain.withContext("Pay 120.00 EUR to ACME")).valid()).isTrue();
        assertThat(allRawItems().toString()).doesNotContain("ACME", "120.00");
    }

    @Test
    void aLinkSentForAPaymentIsUsedUpOnlyWithThatPayment() {
        verification.codes().issue(CodeRequest.of("quin", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "quin@example.com").withContext("Approve login from Firefox on Linux"));
        String link = latestCode();

        assertThat(reasonOf(verification.codes().verify(VerifyRequest.link(link)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verification.codes().verify(VerifyRequest.link(link).withContext("Approve login from Safari"))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification.codes().verify(VerifyRequest.link(link).withContext("Approve login from Firefox on Linux"))
                .valid()).isTrue();
        // And a link sent without a context does not verify with one.
        clock.advance(Duration.ofSeconds(30));
        verification.codes().issue(CodeRequest.of("quin", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "quin@example.com"));
        assertThat(reasonOf(verification.codes().verify(VerifyRequest.link(latestCode()).withContext("anything"))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(allRawItems().toString()).doesNotContain("Firefox");
    }

    @Test
    void theMessageLanguageIsTheRequestedOneAndTheAnswerAndAuditSayWhich() {
        IssueResult sent = verification.codes().issue(CodeRequest.of("rui", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "rui@example.com").withLocale(java.util.Locale.forLanguageTag("pt-BR")));

        assertThat(sent).isInstanceOfSatisfying(IssueResult.Issued.class,
                issued -> assertThat(issued.locale().toLanguageTag()).isEqualTo("pt-BR"));
        assertThat(outbox.messages().get(0).locale().toLanguageTag()).isEqualTo("pt-BR");
        assertThat(verification.audit().query("rui", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty())
                .entries().get(0).details()).containsEntry("locale", "pt-BR");
    }

    // Idempotency-Key: contract §13

    private static final byte[] SEND_BODY = "POST /v1/codes {\"userId\":\"ida\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    @Test
    void theSameKeyAndRequestReplaysTheFirstAnswerAndAnotherRequestIsRefused() {
        IdempotentRequests requests = verification.idempotency();
        IdempotentRequests.Begin first = requests.begin("client-a", "key-1", SEND_BODY, Duration.ofSeconds(5));
        assertThat(first).isInstanceOf(IdempotentRequests.Begin.Proceed.class);
        requests.finish(((IdempotentRequests.Begin.Proceed) first).ticket(), 201, "{\"secret\":\"s3cr3t-device-secret\"}");

        assertThat(requests.begin("client-a", "key-1", SEND_BODY, Duration.ofSeconds(5)))
                .isEqualTo(new IdempotentRequests.Begin.Replay(201, "{\"secret\":\"s3cr3t-device-secret\"}"));
        assertThat(requests.begin("client-a", "key-1", "POST /v1/codes {}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                Duration.ofSeconds(5))).isInstanceOf(IdempotentRequests.Begin.KeyReused.class);
        assertThat(requests.begin("client-b", "key-1", SEND_BODY, Duration.ofSeconds(5)))
                .as("another client's key of the same name").isInstanceOf(IdempotentRequests.Begin.Proceed.class);
        // The answer is sealed: a device secret in it is never in the table in clear, nor the key itself.
        assertThat(allRawItems().toString()).doesNotContain("s3cr3t-device-secret", "key-1");
    }

    @Test
    void aFailedRequestGivesItsKeyUpAndAKeyLeftPendingByADeadRequestIsTakenOver() {
        IdempotentRequests requests = verification.idempotency();
        IdempotentRequests.Begin first = requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO);
        requests.abandon(((IdempotentRequests.Begin.Proceed) first).ticket());
        assertThat(requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO))
                .isInstanceOf(IdempotentRequests.Begin.Proceed.class);

        assertThat(requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO))
                .as("still running").isInstanceOf(IdempotentRequests.Begin.StillRunning.class);
        clock.advance(IdempotentRequests.STALE_AFTER.plusSeconds(1));
        assertThat(requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO))
                .as("its request died").isInstanceOf(IdempotentRequests.Begin.Proceed.class);
    }

    @Test
    void ofEightSimultaneousRequestsWithOneKeyOneRunsAndAllGiveItsAnswer() throws Exception {
        IdempotentRequests requests = verification.idempotency();
        AtomicInteger ran = new AtomicInteger();
        List<String> answers = runConcurrently(8, () -> {
            IdempotentRequests.Begin begin = requests.begin("client-a", "key-3", SEND_BODY, Duration.ofSeconds(20));
            if (begin instanceof IdempotentRequests.Begin.Proceed proceed) {
                String body = "{\"run\":" + ran.incrementAndGet() + "}";
                requests.finish(proceed.ticket(), 202, body);
                return body;
            }
            return ((IdempotentRequests.Begin.Replay) begin).body();
        });

        assertThat(ran.get()).isEqualTo(1);
        assertThat(answers).containsOnly("{\"run\":1}").hasSize(8);
    }

    // Abuse controls: contract §10

    private IssueResult sms(String userId, String number, ClientContext client) {
        return verification.codes().issue(CodeRequest.of(userId, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, number)
                .withClient(client));
    }

    @Test
    void cyclingUserIdsCannotPumpOneNumberExactlyFiveOfTwelveSimultaneousSendsGoOut() throws Exception {
        AtomicInteger users = new AtomicInteger();
        List<IssueResult> results = runConcurrently(12, () -> sms("pump-" + users.incrementAndGet(), "+447700123456",
                ClientContext.none()));

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(5);
        assertThat(results).filteredOn(result -> !(result instanceof IssueResult.Issued)).hasSize(7)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SEND_TO_TARGET"));
        assertThat(outbox.messages()).hasSize(5);
        // The target is counted under its HMAC: the number is nowhere in the table, not even in a counter's key.
        assertThat(allRawItems().toString()).doesNotContain("447700123456").contains("target:");
    }

    @Test
    void anEmailTargetIsCountedWhateverTheCaseOfTheAddress() {
        for (String address : List.of("jo@example.com", "JO@example.com", "jo@EXAMPLE.com", "Jo@Example.Com", "jo@example.COM")) {
            assertThat(verification.codes().issue(CodeRequest.of("u-" + address.hashCode(), CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, address))).isInstanceOf(IssueResult.Issued.class);
        }
        IssueResult sixth = verification.codes().issue(CodeRequest.of("u-last", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "jO@eXample.com"));
        assertThat(sixth).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("SEND_TO_TARGET"));
        assertThat(outbox.messages()).extracting(message -> message.to()).as("sent as given, the domain in lower case")
                .containsExactly("jo@example.com", "Jo@example.com", "jo@example.com", "JO@example.com", "jo@example.com");
    }

    @Test
    void cyclingUserIdsOverSpellingsOfOneGmailInboxIsStoppedAtTheTargetLimitAndEachMessageGoesToTheGivenSpelling() {
        List<IssueResult> results = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            // The red team's spellings: +tags, dots, googlemail.com and capitals, one user id each.
            String spelling = switch (i % 4) {
                case 0 -> "victim+" + i + "@gmail.com";
                case 1 -> "vic.tim+" + i + "@googlemail.com";
                case 2 -> "Victim+" + i + "@GMail.com";
                default -> "v.i.c.t.i.m@gmail.com";
            };
            results.add(verification.codes().issue(CodeRequest.of("rotating-" + i, CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, spelling)));
        }

        assertThat(results.subList(0, 5)).allMatch(IssueResult.Issued.class::isInstance);
        assertThat(results.subList(5, 40)).allSatisfy(result -> assertRefusedBy(result, "SEND_TO_TARGET"));
        // Only the limit's key is the mailbox: each message went to the spelling its caller gave.
        assertThat(outbox.messages()).extracting(message -> message.to()).containsExactlyInAnyOrder("vic.tim+1@googlemail.com",
                "Victim+2@gmail.com", "v.i.c.t.i.m@gmail.com", "victim+4@gmail.com", "vic.tim+5@googlemail.com");
        // And the code verifies as before.
        DevelopmentOutbox.Message first = outbox.messages().stream()
                .filter(message -> message.to().equals("vic.tim+1@googlemail.com")).findFirst().orElseThrow();
        assertThat(verification.codes().verify(VerifyRequest.numeric(first.code(), "rotating-1",
                CodeType.EMAIL_VERIFICATION))).isInstanceOf(VerificationResult.Valid.class);
        // Another mailbox at the same provider still gets its codes.
        assertThat(verification.codes().issue(CodeRequest.of("rotating-41", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "victim2@gmail.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void oneClientAddressGetsExactlyTwentyOfThirtySimultaneousSends() throws Exception {
        AtomicInteger users = new AtomicInteger();
        List<IssueResult> results = runConcurrently(30, () -> {
            int n = users.incrementAndGet();
            return verification.codes().issue(CodeRequest.of("ip-user-" + n, CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, "ip-user-" + n + "@example.com").withClient(ClientContext.of("203.0.113.50", null, null)));
        });

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(20);
        assertThat(results).filteredOn(IssueResult.RateLimited.class::isInstance).hasSize(10)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SEND_FROM_IP"));
        // Another address, and the same /64 of IPv6 counted as one subscriber.
        assertThat(verification.codes().issue(CodeRequest.of("ip-other", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "ip-other@example.com").withClient(ClientContext.of("203.0.113.51", null, null))))
                .isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aBlockedIpv4AddressStaysBlockedUnderEveryIpv6FormOfIt() {
        Verification onePerAddress = build(keys, outbox, VerificationSettings.defaults()
                .withIpLimit(new RateLimitPolicy(1, Duration.ofHours(1))));
        assertThat(onePerAddress.codes().issue(emailFrom("v4-0", "v4-0@example.com", "203.0.113.7")))
                .isInstanceOf(IssueResult.Issued.class);

        // 203.0.113.7 is cb00:7107; Teredo carries it inverted (34ff:8ef8); the 6to4 subnets are the client's choice.
        List<String> forms = List.of("::ffff:203.0.113.7", "::203.0.113.7", "::ffff:0:203.0.113.7", "64:ff9b::203.0.113.7",
                "64:ff9b::cb00:7107", "2002:cb00:7107::1", "2002:cb00:7107:1::1", "2002:cb00:7107:ffff::1",
                "2001:0:4136:e378:8000:63bf:34ff:8ef8", "2001:0:5ef5:79fd:0:1:34ff:8ef8");
        for (int i = 0; i < forms.size(); i++) {
            assertRefusedBy(onePerAddress.codes().issue(emailFrom("v4-" + (i + 1), "v4-" + (i + 1) + "@example.com",
                    forms.get(i))), "SEND_FROM_IP");
        }
        // An ordinary IPv6 client is its own /64, and the IPv4 address's one place is still the only one held.
        assertThat(onePerAddress.codes().issue(emailFrom("v6", "v6@example.com", "2001:db8:1:2::7")))
                .isInstanceOf(IssueResult.Issued.class);
        assertThat(onePerAddress.rateLimiter().current("ip:203.0.113.7", "SEND_FROM_IP",
                VerificationSettings.DEFAULT_IP_LIMIT).count()).isEqualTo(1);
    }

    private static CodeRequest emailFrom(String userId, String address, String ipAddress) {
        return CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, address)
                .withClient(ipAddress == null ? ClientContext.none() : ClientContext.of(ipAddress, null, null));
    }

    private static void assertRefusedBy(IssueResult result, String action) {
        assertThat(result).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo(action));
    }

    @Test
    void aSendRefusedByItsTargetCountsAgainstNothingElseAndStartsNoCooldown() {
        Verification onePerTarget = build(keys, outbox, VerificationSettings.defaults()
                .withTargetLimit(new RateLimitPolicy(1, Duration.ofHours(1))));
        assertThat(onePerTarget.codes().issue(emailFrom("ron", "shared@example.com", null)))
                .isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(onePerTarget.codes().issue(emailFrom("sue", "shared@example.com", "203.0.113.60")),
                "SEND_TO_TARGET");

        // The user's and the client address's places went out beside the target's and were given back.
        assertThat(onePerTarget.rateLimiter().current("sue", "SEND_EMAIL_VERIFICATION",
                VerificationSettings.DEFAULT_SEND_LIMIT).count()).isZero();
        assertThat(onePerTarget.rateLimiter().current("ip:203.0.113.60", "SEND_FROM_IP",
                VerificationSettings.DEFAULT_IP_LIMIT).count()).isZero();
        // No cooldown was started: at the same instant sue's code goes out to another address.
        assertThat(onePerTarget.codes().issue(emailFrom("sue", "sue@example.com", "203.0.113.60")))
                .isInstanceOf(IssueResult.Issued.class);
        assertThat(auditTypes("sue")).containsExactly(AuditEventType.CODE_SENT, AuditEventType.RATE_LIMITED);
    }

    @Test
    void whenSeveralLimitsRefuseOneSendTheFirstInTheirOrderIsReportedAndTheOtherPlacesGoBack() {
        Verification tight = build(keys, outbox, VerificationSettings.defaults()
                .withSendLimit(new RateLimitPolicy(1, Duration.ofMinutes(15)))
                .withTargetLimit(new RateLimitPolicy(1, Duration.ofHours(1)))
                .withIpLimit(new RateLimitPolicy(1, Duration.ofHours(1))));
        assertThat(tight.codes().issue(emailFrom("eve", "eve@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        String evesCode = latestCode();
        assertThat(tight.codes().issue(emailFrom("fay", "full@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        assertThat(tight.codes().issue(emailFrom("gus", "gus@example.com", "198.51.100.1")))
                .isInstanceOf(IssueResult.Issued.class);

        // The user's limit and the target's (and the cooldown): the user's is reported, the address's place goes back.
        assertRefusedBy(tight.codes().issue(emailFrom("eve", "full@example.com", "203.0.113.61")),
                "SEND_EMAIL_VERIFICATION");
        assertThat(tight.rateLimiter().current("ip:203.0.113.61", "SEND_FROM_IP", VerificationSettings.DEFAULT_IP_LIMIT)
                .count()).isZero();
        // The target's and the address's: the target's is reported, the user's place goes back.
        assertRefusedBy(tight.codes().issue(emailFrom("hal", "full@example.com", "198.51.100.1")), "SEND_TO_TARGET");
        assertThat(tight.rateLimiter().current("hal", "SEND_EMAIL_VERIFICATION", VerificationSettings.DEFAULT_SEND_LIMIT)
                .count()).isZero();
        // Locked out of guessing and over the user's limit: the lock-out is reported, the target's place goes back.
        for (int guess = 0; guess < 5; guess++) {
            tight.codes().verify(VerifyRequest.numeric(wrongCode(evesCode), "eve", CodeType.EMAIL_VERIFICATION));
        }
        assertRefusedBy(tight.codes().issue(emailFrom("eve", "eve2@example.com", null)), "VERIFY_EMAIL_VERIFICATION");
        assertThat(tight.codes().issue(emailFrom("ida", "eve2@example.com", null))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aNewCodeIsRefusedForThirtySecondsAfterTheLastAndOfTenAtOnceOneGoesOut() throws Exception {
        AtomicInteger targets = new AtomicInteger();
        List<IssueResult> results = runConcurrently(10, () -> verification.codes().issue(CodeRequest.of("cool",
                CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "cool-" + targets.incrementAndGet() + "@example.com")));

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(1);
        assertThat(results).filteredOn(result -> result instanceof IssueResult.RateLimited limited
                && limited.action().equals("RESEND_EMAIL_VERIFICATION")).isNotEmpty();

        clock.advance(Duration.ofSeconds(29));
        IssueResult early = verification.codes().issue(CodeRequest.of("cool", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "cool@example.com"));
        assertThat(early).isInstanceOfSatisfying(IssueResult.RateLimited.class, refused -> {
            assertThat(refused.action()).isEqualTo("RESEND_EMAIL_VERIFICATION");
            assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        });
        // A refused request takes no place: the user's send count holds only the code that went out.
        assertThat(verification.rateLimiter().current("cool", "SEND_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        assertThat(verification.codes().issue(CodeRequest.of("cool", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "cool@example.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void theSmsBudgetStopsSmsAcrossAllUsersButNotEmail() throws Exception {
        Verification budgeted = build(keys, outbox, VerificationSettings.defaults()
                .withSmsBudget(Optional.of(new RateLimitPolicy(3, Duration.ofHours(1)))));
        List<String> numbers = List.of("+447700123401", "+447700123402", "+447700123403", "+447700123404",
                "+447700123405", "+447700123406");
        AtomicInteger next = new AtomicInteger();
        List<IssueResult> results = runConcurrently(6, () -> {
            int n = next.getAndIncrement();
            return budgeted.codes().issue(CodeRequest.of("budget-" + n, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS,
                    numbers.get(n)));
        });

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(3);
        assertThat(results).filteredOn(IssueResult.RateLimited.class::isInstance).hasSize(3)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SMS_BUDGET"));
        assertThat(budgeted.codes().issue(CodeRequest.of("budget-mail", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "budget@example.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aBudgetSplitOverShardsLetsExactlyItsLimitThroughUnderConcurrency() throws Exception {
        // 7 over 3 shards: the shards hand out 3, 2 and 2 places; 16 users at once, each a number of its own.
        RateLimitPolicy budget = new RateLimitPolicy(7, Duration.ofHours(1), 3);
        Verification budgeted = build(keys, outbox, VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));
        AtomicInteger next = new AtomicInteger(10);
        List<IssueResult> results = runConcurrently(16, () -> {
            int n = next.getAndIncrement();
            return budgeted.codes().issue(smsTo("shard-" + n, "+4477001234" + n));
        });

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(7);
        assertThat(results).filteredOn(IssueResult.RateLimited.class::isInstance).hasSize(9)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SMS_BUDGET"));
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(7);
        // Every shard is full at exactly its share, in an item of its own (a partition key of its own on DynamoDB).
        assertThat(allRawItems()).filteredOn(item -> "SMS_BUDGET".equals(item.get("action")))
                .extracting(item -> item.get("PK") + "=" + ((Number) item.get("count")).longValue())
                .containsExactlyInAnyOrder("RATELIMIT#global#SMS_BUDGET=3", "RATELIMIT#global#1#SMS_BUDGET=2",
                        "RATELIMIT#global#2#SMS_BUDGET=2");
        assertThat(smsBudgetMarks()).as("every sent SMS's place is kept for good").isZero();
    }

    @Test
    void aFullShardFallsOverToTheNextAndAPlaceGivenBackIsFoundAgain() {
        RateLimitPolicy split = new RateLimitPolicy(5, Duration.ofHours(1), 2);
        List<RateLimitDecision> taken = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RateLimitDecision decision = verification.rateLimiter().acquire("global", "SHARDED", split);
            assertThat(decision.allowed()).as("place %d of 5", i + 1).isTrue();
            taken.add(decision);
        }
        assertThat(verification.rateLimiter().acquire("global", "SHARDED", split).allowed()).isFalse();
        assertThat(verification.rateLimiter().current("global", "SHARDED", split).count()).isEqualTo(5);

        verification.rateLimiter().release(taken.get(2));
        assertThat(verification.rateLimiter().current("global", "SHARDED", split).count()).isEqualTo(4);
        assertThat(verification.rateLimiter().acquire("global", "SHARDED", split).allowed())
                .as("whichever shard the walk starts at, it reaches the one with room").isTrue();
        assertThat(verification.rateLimiter().acquire("global", "SHARDED", split).allowed()).isFalse();
    }

    /**
     * A counter item at the most places one counter may hand out, every place still open (a mark each, as when
     * no outcome is known yet): the item is still writable (under DynamoDB's 400 KB), and one place more is
     * refused without a write.
     */
    @Test
    void aCounterAtTheMostPlacesOneItemHoldsIsStillWrittenAndRefusesTheNext() {
        int most = RateLimitPolicy.MAX_PER_COUNTER;
        Place last = placeOf("max", "SEND_EMAIL_VERIFICATION", new SecureTokens().attemptId());
        CounterWindow window = last.window();
        Map<String, Object> item = TableItems.counterItem(window.userId(), window.action(), window.windowStart(),
                window.expiresAt(), most - 1);
        SecureTokens tokens = new SecureTokens();
        for (int place = 1; place < most; place++) {
            item.put(TableItems.placeAttribute(tokens.attemptId()), (long) place);
        }
        putRawItem(item);

        assertThat(store.takePlace(last, most)).isEqualTo(most);
        assertThat(store.takePlace(placeOf("max", "SEND_EMAIL_VERIFICATION", tokens.attemptId()), most))
                .isEqualTo(most + 1L);
        assertThat(store.takePlace(last, most)).as("the last place, recognised on a retry").isEqualTo(most);
        assertThat(verification.rateLimiter().current("max", "SEND_EMAIL_VERIFICATION", new RateLimitPolicy(most,
                Duration.ofMinutes(15))).count()).isEqualTo(most);
    }

    private static final String BUDGET_NUMBER = "+447700123401";

    private static CodeRequest smsTo(String userId, String number) {
        return CodeRequest.of(userId, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, number);
    }

    private long smsBudgetHeld(Verification service, RateLimitPolicy budget) {
        return service.rateLimiter().current("global", "SMS_BUDGET", budget).count();
    }

    /** Counter items of the SMS budget that still hold an attempt's mark. */
    private long smsBudgetMarks() {
        return allRawItems().stream().filter(item -> "SMS_BUDGET".equals(item.get("action")))
                .mapToLong(item -> item.keySet().stream().filter(name -> name.startsWith("place_")).count()).sum();
    }

    @Test
    void resendsInsideTheCooldownNeverTakeFromTheSmsBudgetAndAnotherUserStillGetsAnSms() {
        // The red team's run: one user posts the same number 26 times in 30 seconds under a budget of 20.
        RateLimitPolicy budget = new RateLimitPolicy(20, Duration.ofHours(1));
        Verification budgeted = build(keys, outbox, VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));
        assertThat(budgeted.codes().issue(smsTo("red", BUDGET_NUMBER))).isInstanceOf(IssueResult.Issued.class);
        for (int again = 1; again <= 25; again++) {
            clock.advance(Duration.ofMillis(1100));
            assertRefusedBy(budgeted.codes().issue(smsTo("red", BUDGET_NUMBER)), "RESEND_PHONE_VERIFICATION");
        }

        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(1);
        assertThat(smsBudgetMarks()).as("the sent SMS's place is kept for good, without its mark").isZero();
        assertThat(budgeted.codes().issue(smsTo("blue", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(2);
    }

    @Test
    void ofTwelveSimultaneousSmsOfOneUserInsideTheCooldownExactlyOneTakesAPlaceInTheBudget() throws Exception {
        RateLimitPolicy budget = new RateLimitPolicy(2, Duration.ofHours(1));
        Verification budgeted = build(keys, outbox, VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));

        List<IssueResult> results = runConcurrently(12, () -> budgeted.codes().issue(smsTo("storm", BUDGET_NUMBER)));

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(1);
        assertThat(results).filteredOn(result -> !(result instanceof IssueResult.Issued)).hasSize(11)
                .allSatisfy(result -> assertThat(result).isInstanceOf(IssueResult.RateLimited.class))
                .extracting(result -> ((IssueResult.RateLimited) result).action()).doesNotContain("SMS_BUDGET");
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(1);
        // The budget's second place is still there for someone else, and then it is spent.
        assertThat(budgeted.codes().issue(smsTo("calm", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
        assertRefusedBy(budgeted.codes().issue(smsTo("late", "+447700123403")), "SMS_BUDGET");
    }

    @Test
    void aSmsTheBudgetRefusesReleasesTheUsersCooldownAndHoldsNothing() {
        RateLimitPolicy budget = new RateLimitPolicy(1, Duration.ofHours(1));
        Verification budgeted = build(keys, outbox, VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));
        assertThat(budgeted.codes().issue(smsTo("first", BUDGET_NUMBER))).isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(budgeted.codes().issue(smsTo("second", "+447700123402")), "SMS_BUDGET");

        assertThat(budgeted.rateLimiter().current("second", "SEND_PHONE_VERIFICATION",
                VerificationSettings.DEFAULT_SEND_LIMIT).count()).isZero();
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(1);
        // No cooldown holds "second" back: once the budget has room again (an operator clears it), at the same
        // instant, the SMS goes out.
        budgeted.rateLimiter().reset("global", "SMS_BUDGET");
        assertThat(budgeted.codes().issue(smsTo("second", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aKeptPlaceStaysCountedLosesItsMarkAndCannotBeGivenBackAndKeepingTwiceIsHarmless() {
        Place kept = placeOf("kai", "SMS_BUDGET", "attempt-1");
        Place open = placeOf("kai", "SMS_BUDGET", "attempt-2");
        assertThat(store.takePlace(kept, 5)).isEqualTo(1);
        assertThat(store.takePlace(open, 5)).isEqualTo(2);

        store.keepPlace(kept);
        store.keepPlace(kept);
        store.givePlaceBack(kept);

        assertThat(verification.rateLimiter().current("kai", "SMS_BUDGET", FIVE).count()).isEqualTo(2);
        assertThat(allRawItems()).filteredOn(item -> "kai".equals(item.get("userId")) && "SMS_BUDGET".equals(item.get("action")))
                .singleElement().satisfies(item -> assertThat(item.keySet()).filteredOn(name -> name.startsWith("place_"))
                        .as("only the open place's mark").hasSize(1));
        // The open place still goes back once; keeping it after that changes nothing.
        store.givePlaceBack(open);
        store.keepPlace(open);
        assertThat(verification.rateLimiter().current("kai", "SMS_BUDGET", FIVE).count()).isEqualTo(1);
    }

    @Test
    void aReleasedCooldownIsFreeAgainAndOnlyItsOwnClaimIsEverReleased() {
        Cooldown mine = new Cooldown("cal", "RESEND_EMAIL_VERIFICATION", START, Duration.ofSeconds(30), "attempt-1");
        Cooldown other = new Cooldown("cal", "RESEND_EMAIL_VERIFICATION", START.plusSeconds(1), Duration.ofSeconds(30),
                "attempt-2");
        assertThat(store.claimCooldown(mine)).isEmpty();

        store.releaseCooldown(other);
        assertThat(store.claimCooldown(other)).as("another attempt's release left it held").isPresent();

        store.releaseCooldown(mine);
        store.releaseCooldown(mine);
        assertThat(store.claimCooldown(other)).as("free once released").isEmpty();
        store.releaseCooldown(mine);
        Cooldown third = new Cooldown("cal", "RESEND_EMAIL_VERIFICATION", START.plusSeconds(2), Duration.ofSeconds(30),
                "attempt-3");
        assertThat(store.claimCooldown(third)).as("a late retry of the first release frees nobody else's claim")
                .contains(START.plusSeconds(31));
    }

    @Test
    void noCodeHasMoreThanFiveWrongGuessesTestedHoweverTheWindowsFall() {
        clock.set(START.plus(Duration.ofMinutes(14)));
        String code = sendEmailCode("wyn");
        clock.set(START.plus(Duration.ofMinutes(14)).plusSeconds(31));
        for (int guess = 1; guess <= 4; guess++) {
            assertThat(reasonOf(verifyEmailCode("wyn", wrongCode(code)))).isEqualTo(FailureReason.NOT_FOUND);
        }
        // The next window has begun; the code, fourteen and a half minutes from expiry, has had four guesses.
        clock.set(START.plus(Duration.ofMinutes(15)).plusSeconds(3));
        assertThat(reasonOf(verifyEmailCode("wyn", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        for (int guess = 6; guess <= 9; guess++) {
            assertThat(reasonOf(verifyEmailCode("wyn", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        }
        assertThat(reasonOf(verifyEmailCode("wyn", code))).as("the right code is not tested either")
                .isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        // Four in the first window, one in the second: the untested attempts took no place.
        assertThat(verification.rateLimiter().current("wyn", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(1);
    }

    @Test
    void aLockOutOfNumericGuessingNeverStopsAPasswordResetLink() {
        IssueResult link = verification.codes().issue(CodeRequest.of("zed", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "zed@example.com"));
        assertThat(link).isInstanceOf(IssueResult.Issued.class);
        String linkCode = latestCode();
        for (int guess = 1; guess <= 5; guess++) {
            verification.codes().verify(VerifyRequest.numeric("000000", "zed", CodeType.PASSWORD_RESET));
        }
        assertThat(reasonOf(verification.codes().verify(VerifyRequest.numeric("000000", "zed", CodeType.PASSWORD_RESET))))
                .isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);

        // The lock-out deleted no link, and a new link is still issued; a new NUMERIC reset code is not.
        assertThat(verification.codes().check(VerifyRequest.link(linkCode)).valid()).isTrue();
        clock.advance(Duration.ofSeconds(30));
        assertThat(verification.codes().issue(CodeRequest.of("zed", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "zed@example.com").withFormat(CodeFormat.NUMERIC))).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("VERIFY_PASSWORD_RESET"));
        assertThat(verification.codes().issue(CodeRequest.of("zed", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "zed@example.com"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(verification.codes().verify(VerifyRequest.link(latestCode())).valid()).isTrue();
    }

    // Every write is correct when it runs twice (a lost answer and a retry): contract §12

    private static final RateLimitPolicy FIVE = new RateLimitPolicy(5, Duration.ofMinutes(15));

    private static Place placeOf(String userId, String action, String attemptId) {
        Instant windowStart = RateLimiter.windowStart(START, FIVE.window());
        return new Place(new CounterWindow(userId, action, windowStart, windowStart.plus(Duration.ofHours(2))), attemptId);
    }

    @Test
    void aRetriedPlaceIsCountedOnceAndGivenBackOnce() {
        Place first = placeOf("ria", "SEND_EMAIL_VERIFICATION", "attempt-1");
        Place second = placeOf("ria", "SEND_EMAIL_VERIFICATION", "attempt-2");

        assertThat(store.takePlace(first, 5)).isEqualTo(1);
        assertThat(store.takePlace(first, 5)).as("the same attempt again").isEqualTo(1);
        assertThat(store.takePlace(second, 5)).isEqualTo(2);
        assertThat(store.takePlace(first, 5)).as("still its first place").isEqualTo(1);
        assertThat(verification.rateLimiter().current("ria", "SEND_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(2);

        store.givePlaceBack(second);
        store.givePlaceBack(second);
        assertThat(verification.rateLimiter().current("ria", "SEND_EMAIL_VERIFICATION", FIVE).count())
                .as("a place given back twice counts down once").isEqualTo(1);
    }

    @Test
    void atTheCeilingNothingIsCountedAndAHeldPlaceIsStillRecognised() {
        for (int i = 1; i <= 3; i++) {
            assertThat(store.takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a" + i), 3)).isEqualTo(i);
        }
        assertThat(store.takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a4"), 3)).isEqualTo(4);
        assertThat(store.takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a5"), 3)).isEqualTo(4);
        assertThat(store.takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a2"), 3)).isEqualTo(2);
        assertThat(verification.rateLimiter().current("sam", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(3);
    }

    @Test
    void anOperatorLiftsALockOutAndTheCorrectCodeThenVerifiesWithTheLiftAudited() {
        String code = sendEmailCode("lou");
        for (int i = 0; i < 5; i++) {
            verifyEmailCode("lou", wrongCode(code));
        }
        assertThat(reasonOf(verifyEmailCode("lou", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        verification.rateLimiter().acquire("lou", "SEND_PHONE_VERIFICATION", FIVE);

        int cleared = verification.operator().liftRateLimit("lou", "VERIFY_EMAIL_VERIFICATION", "key-1a2b", ClientContext.none());

        assertThat(cleared).isEqualTo(1);
        assertThat(verification.rateLimiter().current("lou", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isZero();
        assertThat(verification.rateLimiter().current("lou", "SEND_PHONE_VERIFICATION", FIVE).count())
                .as("other actions keep their counts").isEqualTo(1);
        // The lock-out invalidated the old code; a new one verifies now.
        clock.advance(Duration.ofSeconds(30));
        String fresh = sendEmailCode("lou");
        assertThat(verifyEmailCode("lou", fresh).valid()).isTrue();
        AuditEntry lifted = verification.audit().query("lou", Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries().stream().filter(entry -> entry.eventType() == AuditEventType.RATE_LIMIT_RESET)
                .findFirst().orElseThrow();
        assertThat(lifted.details()).containsEntry("action", "VERIFY_EMAIL_VERIFICATION")
                .containsEntry("operatorKeyId", "key-1a2b").containsEntry("windowsCleared", "1");
        assertThatThrownBy(() -> verification.operator().liftRateLimit("lou", "NOT_AN_ACTION", "key-1a2b",
                ClientContext.none())).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("action"));
    }

    @Test
    void anOperatorInvalidatesEveryLiveCodeOfAUserAndTheOverviewShowsNoDigest() {
        sendEmailCode("max");
        clock.advance(Duration.ofSeconds(40));
        verification.codes().issue(CodeRequest.of("max", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "max@example.com"));
        indexCatchesUp();
        assertThat(verification.operator().overview("max").liveCodes()).extracting(LiveCode::codeType)
                .containsExactly(CodeType.PASSWORD_RESET, CodeType.EMAIL_VERIFICATION);
        assertThat(verification.operator().overview("max").toString()).doesNotContain(
                store.findCodes("max", CodeType.EMAIL_VERIFICATION).get(0).digest());

        assertThat(verification.operator().invalidateCodes("max", "key-9f", ClientContext.none())).isEqualTo(2);

        indexCatchesUp();
        assertThat(verification.operator().overview("max").liveCodes()).isEmpty();
        assertThat(verification.audit().query("max", Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries()).filteredOn(entry -> entry.eventType() == AuditEventType.CODES_INVALIDATED)
                .hasSize(2).allSatisfy(entry -> assertThat(entry.details()).containsEntry("operatorKeyId", "key-9f")
                        .containsEntry("reason", "OPERATOR"));
    }

    @Test
    void anOperatorRevokesOneDeviceAndThenAllWithTheKeyIdAudited() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        RegisteredDevice phone = registerDevice("opal", "phone-1");
        RegisteredDevice laptop = registerDevice("opal", "laptop-1");

        assertThat(verification.operator().revokeDevice("opal", "phone-1", "adm-0123456789ab", ClientContext.none()))
                .isEqualTo(1);

        assertThat(verification.devices().verify("phone-1", phone.secret(), ClientContext.none()).valid()).isFalse();
        assertThat(verification.devices().verify("laptop-1", laptop.secret(), ClientContext.none()).valid()).isTrue();
        // Revoke-all counts what the index shows (its marker refuses the rest whatever the count says).
        indexCatchesUp();
        assertThat(verification.operator().revokeAllDevices("opal", "adm-0123456789ab", ClientContext.none()))
                .isEqualTo(1);
        assertThat(verification.devices().verify("laptop-1", laptop.secret(), ClientContext.none()).valid()).isFalse();
        List<AuditEntry> entries = verification.audit().query("opal", Optional.empty(), Optional.empty(),
                Optional.of(100), Optional.empty()).entries();
        assertThat(entries).filteredOn(entry -> entry.eventType() == AuditEventType.DEVICE_REVOKED).singleElement()
                .satisfies(entry -> {
                    assertThat(entry.details()).containsEntry("operatorKeyId", "adm-0123456789ab")
                            .containsEntry("count", "1");
                    assertThat(entry.deviceId()).contains("phone-1");
                });
        assertThat(entries).filteredOn(entry -> entry.eventType() == AuditEventType.DEVICES_REVOKED).singleElement()
                .satisfies(entry -> assertThat(entry.details()).containsEntry("operatorKeyId", "adm-0123456789ab"));
    }

    @Test
    void theTimelineKeepsOnlyTheAskedTypesAndPagesThroughThemWithItsCursor() {
        // 7 CODE_SENT among failed verifications, one second apart, newest last.
        List<Instant> sent = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            verification.audit().recordSuccess("tim", AuditEventType.CODE_SENT, Map.of("n", Integer.toString(i)),
                    ClientContext.none());
            sent.add(clock.instant());
            clock.advance(Duration.ofSeconds(1));
            verification.audit().recordFailure("tim", AuditEventType.CODE_VERIFICATION_FAILED, "NOT_FOUND", Map.of(),
                    ClientContext.none());
            clock.advance(Duration.ofSeconds(1));
        }
        Instant from = START;
        Instant to = clock.instant();
        Set<AuditEventType> onlySent = Set.of(AuditEventType.CODE_SENT);

        AuditPage first = verification.operator().timeline("tim", from, to, onlySent, 3, Optional.empty());
        AuditPage second = verification.operator().timeline("tim", from, to, onlySent, 3, first.nextCursor());
        AuditPage third = verification.operator().timeline("tim", from, to, onlySent, 3, second.nextCursor());

        List<String> order = new ArrayList<>();
        for (AuditPage page : List.of(first, second, third)) {
            page.entries().forEach(entry -> {
                assertThat(entry.eventType()).isEqualTo(AuditEventType.CODE_SENT);
                order.add(entry.details().get("n"));
            });
        }
        assertThat(order).containsExactly("6", "5", "4", "3", "2", "1", "0");
        assertThat(third.nextCursor()).isEmpty();
        assertThat(verification.operator().timeline("tim", from, to, Set.of(), 100, Optional.empty()).entries())
                .hasSize(14);
        assertThat(verification.operator().timeline("tim", sent.get(5), to, Set.of(AuditEventType.CODE_VERIFICATION_FAILED),
                100, Optional.empty()).entries()).hasSize(2).allSatisfy(entry -> assertThat(entry.success()).isFalse());
    }

    @Test
    void theActivityCountsEventsAndFailuresPerPeriod() {
        verification.audit().recordSuccess("ava", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());
        verification.audit().recordFailure("ava", AuditEventType.CODE_VERIFICATION_FAILED, "NOT_FOUND", Map.of(),
                ClientContext.none());
        clock.advance(Duration.ofMinutes(90));
        verification.audit().recordSuccess("ava", AuditEventType.CODE_VERIFIED, Map.of(), ClientContext.none());

        OperatorService.Activity activity = verification.operator().activity("ava", START.minus(Duration.ofHours(1)),
                clock.instant(), Duration.ofHours(1), Set.of());

        // 09:00, 10:00 and 11:00 (11:30 is the end of the range).
        assertThat(activity.buckets()).extracting(OperatorService.ActivityBucket::start).containsExactly(
                START.minus(Duration.ofHours(1)), START, START.plus(Duration.ofHours(1)));
        assertThat(activity.buckets()).extracting(OperatorService.ActivityBucket::successes).containsExactly(0, 1, 1);
        assertThat(activity.buckets()).extracting(OperatorService.ActivityBucket::failures).containsExactly(0, 1, 0);
        assertThat(activity.events()).isEqualTo(3);
        assertThat(activity.failures()).isEqualTo(1);
        assertThat(activity.peak()).isEqualTo(2);
        assertThat(activity.truncated()).isFalse();
        assertThat(verification.operator().activity("ava", START, clock.instant(), Duration.ofHours(1),
                Set.of(AuditEventType.CODE_VERIFIED)).events()).isEqualTo(1);
    }

    @Test
    void aRetriedInsertOfTheSameCodeIsStoredOnceAndAnotherRequestsCodeIsACollision() {
        VerificationCode code = new VerificationCode("digest-of-a-code", "tia", CodeType.EMAIL_VERIFICATION,
                CodeFormat.NUMERIC, DeliveryMethod.EMAIL, "t***@example.com", false, START, START.plusSeconds(900));

        assertThat(store.insertCode(code, "issue-1")).isTrue();
        assertThat(store.insertCode(code, "issue-1")).as("a retry of the same insert").isTrue();
        assertThat(store.insertCode(code, "issue-2")).as("another request with the same key").isFalse();
        indexCatchesUp();
        assertThat(store.findCodes("tia", CodeType.EMAIL_VERIFICATION)).containsExactly(code);
    }

    @Test
    void aRetriedAuditAppendWritesOneEntry() {
        AuditEntry entry = verification.audit().newEntry("uma", AuditEventType.CODE_SENT, true, Optional.empty(),
                Map.of("codeType", "EMAIL_VERIFICATION"), ClientContext.none());

        assertThat(store.appendAudit(entry)).isTrue();
        assertThat(store.appendAudit(entry)).as("a retry of the same append").isTrue();
        AuditEntry other = new AuditEntry("uma", entry.timestamp(), entry.entryId(), AuditEventType.CODE_VERIFIED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), entry.expiresAt());
        assertThat(store.appendAudit(other)).as("another entry on the same key").isFalse();
        assertThat(auditTypes("uma")).containsExactly(AuditEventType.CODE_SENT);
    }

    @Test
    void aRetriedConsumeIsTheSameSuccessWithOneAuditEntryAndOneGiveBack() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        String code = sendEmailCode("vic");
        indexCatchesUp();
        String digest = store.findCodes("vic", CodeType.EMAIL_VERIFICATION).get(0).digest();
        Place place = placeOf("vic", "VERIFY_EMAIL_VERIFICATION", "guess-1");
        assertThat(store.takePlace(place, 5)).isEqualTo(1);
        AuditEntry verified = verification.audit().newEntry("vic", AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                Map.of(), ClientContext.none());
        CodeConsumption consumption = new CodeConsumption(digest, "vic", CodeType.EMAIL_VERIFICATION, START,
                "consume-1", verified, Optional.of(place));

        assertThat(store.consumeCode(consumption)).isEqualTo(new ConsumeOutcome.Consumed());
        assertThat(store.consumeCode(consumption)).as("the same attempt again").isEqualTo(new ConsumeOutcome.Consumed());

        CodeConsumption another = new CodeConsumption(digest, "vic", CodeType.EMAIL_VERIFICATION, START, "consume-2",
                verification.audit().newEntry("vic", AuditEventType.CODE_VERIFIED, true, Optional.empty(), Map.of(),
                        ClientContext.none()), Optional.empty());
        assertThat(store.consumeCode(another)).isInstanceOfSatisfying(ConsumeOutcome.Rejected.class,
                rejected -> assertThat(rejected.current()).hasValueSatisfying(stored -> assertThat(stored.used()).isTrue()));
        assertThat(auditTypes("vic")).containsExactly(AuditEventType.CODE_VERIFIED, AuditEventType.CODE_SENT);
        assertThat(verification.rateLimiter().current("vic", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isZero();
    }

    @Test
    void aConsumeWhoseAuditEntryCannotBeWrittenLeavesTheCodeUnusedAndTheCountAsItWas() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        String code = sendEmailCode("wes");
        String digest = store.findCodes("wes", CodeType.EMAIL_VERIFICATION).get(0).digest();
        Place place = placeOf("wes", "VERIFY_EMAIL_VERIFICATION", "guess-1");
        store.takePlace(place, 5);
        AuditEntry taken = verification.audit().recordSuccess("wes", AuditEventType.CODE_SENT, Map.of("n", "1"),
                ClientContext.none());
        AuditEntry sameKey = new AuditEntry("wes", taken.timestamp(), taken.entryId(), AuditEventType.CODE_VERIFIED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), taken.expiresAt());

        assertThatThrownBy(() -> store.consumeCode(new CodeConsumption(digest, "wes", CodeType.EMAIL_VERIFICATION, START,
                "consume-1", sameKey, Optional.of(place)))).isInstanceOf(StoreException.class);

        assertThat(store.findCode(digest)).hasValueSatisfying(stored -> assertThat(stored.used()).isFalse());
        assertThat(verification.rateLimiter().current("wes", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(1);
        assertThat(verifyEmailCode("wes", code).valid()).as("the code still works").isTrue();
    }

    @Test
    void aThousandAuditEventsAtOneInstantGiveAThousandEntries() throws Exception {
        runConcurrently(1000, () -> verification.audit().recordSuccess("kim", AuditEventType.CODE_SENT, Map.of(),
                ClientContext.none()));

        Set<String> entryIds = new HashSet<>();
        Optional<String> cursor = Optional.empty();
        do {
            AuditPage page = verification.audit().query("kim", Optional.empty(), Optional.empty(), Optional.of(100), cursor);
            page.entries().forEach(entry -> entryIds.add(entry.entryId()));
            cursor = page.nextCursor();
        } while (cursor.isPresent());
        assertThat(entryIds).hasSize(1000);
        assertThat(allRawItems()).hasSize(1000);
    }

    /** Runs {@code tasks} copies of the call at once (released together by a latch) on a pool of threads. */
    protected static <T> List<T> runConcurrently(int tasks, Callable<T> call) throws Exception {
        int threads = Math.min(tasks, 50);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(2, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}

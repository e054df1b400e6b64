package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.SecretKeyRing;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Codes: issued once, verified once, bound to their user and type, expired at their ttl, replaced by the next. */
public abstract class CodeContract extends ContractPart {

    protected CodeContract(ContractFixture fixture) {
        super(fixture);
    }

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

        assertThat(verification().codes().check(request).valid()).isTrue();
        assertThat(verification().codes().check(request).valid()).isTrue();
        assertThat(verification().codes().verify(request).valid()).isTrue();
        assertThat(reasonOf(verification().codes().check(request))).isEqualTo(FailureReason.USED);
    }

    @Test
    void aCodeOneSecondPastItsTtlIsExpiredThoughStillStored() {
        String code = sendEmailCode("alice");
        VerifyRequest request = VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION);

        clock().advance(Duration.ofMinutes(15).minusSeconds(1));
        assertThat(verification().codes().check(request).valid()).isTrue();

        clock().advance(Duration.ofSeconds(2));
        assertThat(reasonOf(verification().codes().check(request))).isEqualTo(FailureReason.EXPIRED);
        assertThat(reasonOf(verification().codes().verify(request))).isEqualTo(FailureReason.EXPIRED);
        // EXPIRED (not NOT_FOUND) proves the item is still there, and it was not consumed either:
        assertThat(allRawItems()).anySatisfy(item -> {
            assertThat(item.get("codeType")).isEqualTo("EMAIL_VERIFICATION");
            assertThat(item.get("isUsed")).isEqualTo(false);
        });
    }

    @Test
    void aCodeExactlyAtItsTtlSecondIsExpired() {
        String code = sendEmailCode("alice");
        clock().advance(Duration.ofMinutes(15));

        assertThat(reasonOf(verifyEmailCode("alice", code))).isEqualTo(FailureReason.EXPIRED);
    }

    @Test
    void aNewCodeInvalidatesTheUsersEarlierCodesOfThatTypeOnly() {
        String first = sendEmailCode("alice");
        verification().codes().issue(CodeRequest.of("alice", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+447700123456"));
        String phoneCode = latestCode();
        clock().advance(Duration.ofSeconds(30));
        String second = sendEmailCode("alice");

        assertThat(reasonOf(verifyEmailCode("alice", first))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("alice", second).valid()).isTrue();
        assertThat(verification().codes().verify(VerifyRequest.numeric(phoneCode, "alice", CodeType.PHONE_VERIFICATION))
                .valid()).isTrue();
        assertThat(auditTypes("alice")).contains(AuditEventType.CODES_INVALIDATED);
    }

    // No rule reads its own write through the user index (on DynamoDB, GSI1 is eventually consistent): the
    // DynamoDB tests run with an index that shows nothing until indexCatchesUp().

    @Test
    void ofTwoCodesSentBackToBackWithoutACooldownOnlyTheNewestVerifiesAlsoOnceTheIndexCaughtUp() {
        Verification noCooldown = build(keys(), outbox(), VerificationSettings.defaults().withResendCooldown(Duration.ZERO));
        CodeRequest request = CodeRequest.of("bea", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "bea@example.com");
        assertThat(noCooldown.codes().issue(request)).isInstanceOf(IssueResult.Issued.class);
        clock().advance(Duration.ofMillis(1));
        assertThat(noCooldown.codes().issue(request)).isInstanceOf(IssueResult.Issued.class);
        String older = outbox().messages().get(1).code();
        String newest = outbox().messages().get(0).code();

        assertThat(reasonOf(noCooldown.codes().check(VerifyRequest.numeric(older, "bea", CodeType.EMAIL_VERIFICATION))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verifyEmailCode("bea", older))).isEqualTo(FailureReason.NOT_FOUND);
        indexCatchesUp();
        assertThat(reasonOf(verifyEmailCode("bea", older))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("bea", newest).valid()).isTrue();
    }

    @Test
    void ofTwoCodesSentInOneMillisecondTheLaterRequestsCodeIsTheOneThatVerifies() {
        Verification noCooldown = build(keys(), outbox(), VerificationSettings.defaults().withResendCooldown(Duration.ZERO));
        CodeRequest request = CodeRequest.of("bo", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "bo@example.com");
        for (int i = 0; i < 2; i++) {
            assertThat(noCooldown.codes().issue(request)).isInstanceOf(IssueResult.Issued.class);
        }

        assertThat(reasonOf(verifyEmailCode("bo", outbox().messages().get(1).code()))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("bo", outbox().messages().get(0).code()).valid()).isTrue();
    }

    @Test
    void codesTheOperatorInvalidatesRightAfterASendAreCountedAndNoLongerVerifyAlsoOnceTheIndexCaughtUp() {
        String code = sendEmailCode("cal");

        assertThat(verification().operator().invalidateCodes("cal", "key-9f", ClientContext.none())).isEqualTo(1);

        assertThat(reasonOf(verifyEmailCode("cal", code))).isEqualTo(FailureReason.NOT_FOUND);
        indexCatchesUp();
        assertThat(reasonOf(verifyEmailCode("cal", code))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification().operator().overview("cal").liveCodes()).isEmpty();
    }

    @Test
    void aLockOutRightAfterASendInvalidatesThatCodeSoLiftingTheLockOutDoesNotReviveIt() {
        String code = sendEmailCode("dee");
        for (int i = 0; i < 5; i++) {
            verifyEmailCode("dee", wrongCode(code));
        }
        verification().operator().liftRateLimit("dee", "VERIFY_EMAIL_VERIFICATION", "key-1a2b", ClientContext.none());

        assertThat(reasonOf(verifyEmailCode("dee", code))).isEqualTo(FailureReason.NOT_FOUND);
        indexCatchesUp();
        assertThat(reasonOf(verifyEmailCode("dee", code))).isEqualTo(FailureReason.NOT_FOUND);
    }

    @Test
    void aNumericCodeIsBoundToItsUserAndType() {
        String code = sendEmailCode("alice");

        assertThat(reasonOf(verifyEmailCode("bob", code))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verification().codes().verify(VerifyRequest.numeric(code, "alice", CodeType.PASSWORD_RESET))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verifyEmailCode("alice", code).valid()).isTrue();
    }

    @Test
    void aLinkCodeVerifiesByItselfAndOnlyForTheTypeItWasIssuedFor() {
        IssueResult issued = verification().codes().issue(
                CodeRequest.of("carol", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "carol@example.com"));
        assertThat(((IssueResult.Issued) issued).format()).isEqualTo(CodeFormat.LINK);
        String link = latestCode();
        assertThat(link).hasSize(43);

        VerificationResult wrongType = verification().codes().verify(
                new VerifyRequest(link, Optional.empty(), Optional.of(CodeType.EMAIL_VERIFICATION), ClientContext.none()));
        assertThat(reasonOf(wrongType)).isEqualTo(FailureReason.NOT_FOUND);

        VerificationResult valid = verification().codes().verify(VerifyRequest.link(link));
        assertThat(valid).isEqualTo(new VerificationResult.Valid("carol", CodeType.PASSWORD_RESET, Optional.empty()));
        assertThat(reasonOf(verification().codes().verify(VerifyRequest.link(link)))).isEqualTo(FailureReason.USED);
    }

    @Test
    void previousKeysStillVerifyAfterRotation() {
        String code = sendEmailCode("alice");
        String nextKey = SecretKeyRing.generateBase64Key(RANDOM);
        Verification rotated = build(SecretKeyRing.fromBase64(List.of(nextKey, keyBase64())), outbox(),
                VerificationSettings.defaults());

        assertThat(rotated.codes().verify(VerifyRequest.numeric(code, "alice", CodeType.EMAIL_VERIFICATION)).valid())
                .isTrue();

        clock().advance(Duration.ofSeconds(30));
        rotated.codes().issue(CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com"));
        String underNewKey = latestCode();
        assertThat(reasonOf(verifyEmailCode("alice", underNewKey))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(rotated.codes().verify(VerifyRequest.numeric(underNewKey, "alice", CodeType.EMAIL_VERIFICATION))
                .valid()).isTrue();
    }

    @Test
    void aLoginLinkIsATypeOfItsOwnBesideAPendingEmailCodeAndOnlyItsContextUsesIt() {
        String emailCode = sendEmailCode("lena");
        // At once: the resend cooldown and the send limit are counted per type.
        IssueResult issued = verification().codes().issue(new CodeRequest("lena", CodeType.LOGIN, DeliveryMethod.EMAIL,
                "lena@example.com", Optional.empty(), Optional.empty(), ClientContext.none(), Optional.empty(),
                Optional.of("Sign in")));
        assertThat(issued).isInstanceOf(IssueResult.Issued.class);
        assertThat(((IssueResult.Issued) issued).format()).isEqualTo(CodeFormat.LINK);
        String link = latestCode();

        VerifyRequest login = new VerifyRequest(link, Optional.empty(), Optional.of(CodeType.LOGIN), ClientContext.none());
        assertThat(reasonOf(verification().codes().verify(new VerifyRequest(link, Optional.empty(),
                Optional.of(CodeType.EMAIL_VERIFICATION), ClientContext.none()).withContext("Sign in"))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification().codes().verify(login).valid()).as("without its context").isFalse();
        assertThat(reasonOf(verification().codes().verify(VerifyRequest.link(link).withContext("Sign in"))))
                .as("a request that names no type (the HTTP API's) never reaches a LOGIN link")
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification().codes().verify(login.withContext("Sign in")))
                .isEqualTo(new VerificationResult.Valid("lena", CodeType.LOGIN, Optional.empty()));
        assertThat(verifyEmailCode("lena", emailCode).valid()).as("the email code was not replaced").isTrue();
    }

    @Test
    void ofFiftyConcurrentVerificationsOfOneCodeExactlyOneSucceeds() throws Exception {
        // A LINK code: its attempts are not counted, so all fifty race for the one conditional write.
        verification().codes().issue(CodeRequest.of("ivy", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "ivy@example.com"));
        String link = latestCode();

        List<VerificationResult> results = runConcurrently(50, () -> verification().codes().verify(VerifyRequest.link(link)));

        assertThat(results).filteredOn(VerificationResult::valid).hasSize(1);
        assertThat(results).filteredOn(result -> !result.valid()).extracting(ContractPart::reasonOf)
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
        Verification service = build(keys(), outbox(), generous);

        List<IssueResult> results = runConcurrently(8, () -> service.codes().issue(
                CodeRequest.of("joy", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "joy@example.com")));

        assertThat(results).as("all eight were issued and delivered").hasSize(8)
                .allSatisfy(result -> assertThat(result).isInstanceOf(IssueResult.Issued.class));
        assertThat(outbox().messages()).hasSize(8);
        assertThat(allRawItems()).filteredOn(item -> "joy".equals(item.get("userId")) && item.containsKey("codeType"))
                .hasSize(1);
        long working = outbox().messages().stream()
                .filter(message -> service.codes().check(VerifyRequest.numeric(message.code(), "joy",
                        CodeType.EMAIL_VERIFICATION)).valid())
                .count();
        assertThat(working).isEqualTo(1);
    }
}

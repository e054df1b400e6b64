package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.emailOf;
import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sending, checking and verifying codes through the client, against the real server. */
class CodesTest {

    private final TestServer server = TestServer.shared();
    private final VerificationClient client = server.client();

    @BeforeEach
    void resetClock() {
        server.clock().set(TestServer.START);
    }

    /** The newest outbox message to this target, as the person would read it. */
    private String codeSentTo(String target) {
        return client.devOutbox().stream().filter(message -> message.to().equals(target)).findFirst()
                .orElseThrow(() -> new AssertionError("no message to " + target)).code();
    }

    @Test
    void theOutboxOfOneUserHoldsOnlyThatUsersMessages() {
        String user = newUser();
        String other = newUser();
        client.codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, emailOf(user)));
        client.codes().send(SendCodeRequest.of(other, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                emailOf(other)));

        assertThat(client.devOutbox(user)).singleElement().satisfies(message -> {
            assertThat(message.userId()).isEqualTo(user);
            assertThat(message.to()).isEqualTo(emailOf(user));
            assertThat(message.code()).isEqualTo(codeSentTo(emailOf(user)));
        });
    }

    @Test
    void humanVerifiedFromAKeyNotPermittedToSayItIsA403NamingTheField() {
        String user = newUser();
        assertThatThrownBy(() -> client.codes().send(SendCodeRequest.builder(user, CodeType.PHONE_VERIFICATION,
                        DeliveryMethod.SMS, TestServer.newMobile()).humanVerified(true).build()))
                .isInstanceOfSatisfying(ProblemException.class, problem -> {
                    assertThat(problem.status()).isEqualTo(403);
                    assertThat(problem.property("field")).contains("humanVerified");
                });
    }

    @Test
    void sendCheckVerifyAndVerifyAgain() {
        String user = newUser();
        SendResult sent = client.codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, emailOf(user)));

        assertThat(sent.sent()).isTrue();
        SendResult.Sent details = (SendResult.Sent) sent;
        assertThat(details.codeType()).isEqualTo(CodeType.EMAIL_VERIFICATION);
        assertThat(details.deliveryMethod()).isEqualTo(DeliveryMethod.EMAIL);
        assertThat(details.format()).isEqualTo(CodeFormat.NUMERIC);
        assertThat(details.maskedTarget()).isEqualTo("c***@example.com");
        assertThat(details.expiresAt()).isEqualTo(TestServer.START.plus(Duration.ofMinutes(15)));

        String code = codeSentTo(emailOf(user));
        assertThat(code).matches("[0-9]{6}");
        PresentedCode presented = PresentedCode.numeric(code, user, CodeType.EMAIL_VERIFICATION);
        assertThat(presented.toString()).doesNotContain(code);

        CheckResult checked = client.codes().check(presented);
        assertThat(checked).isEqualTo(new CheckResult.Valid(user, CodeType.EMAIL_VERIFICATION,
                java.util.Optional.of(details.expiresAt())));

        VerifyResult verified = client.codes().verify(presented.withClient(ClientContext.of("198.51.100.7", "junit")));
        assertThat(verified).isEqualTo(new VerifyResult.Valid(user, CodeType.EMAIL_VERIFICATION));
        assertThat(client.codes().verify(presented)).isEqualTo(new VerifyResult.Invalid(InvalidCodeReason.USED));
        assertThat(client.codes().check(presented).valid()).isFalse();
    }

    @Test
    void aPasswordResetLinkBySmsVerifiesByTheCodeAlone() {
        String user = newUser();
        String mobile = TestServer.newMobile();
        SendResult sent = client.codes().send(SendCodeRequest.builder(user, CodeType.PASSWORD_RESET,
                DeliveryMethod.SMS, mobile).format(CodeFormat.LINK).build());
        assertThat(sent).isInstanceOf(SendResult.Sent.class);
        assertThat(((SendResult.Sent) sent).format()).isEqualTo(CodeFormat.LINK);
        String link = codeSentTo(mobile);

        assertThat(client.codes().check(PresentedCode.link(link, CodeType.EMAIL_VERIFICATION)))
                .isEqualTo(new CheckResult.Invalid(InvalidCodeReason.NOT_FOUND));
        assertThat(client.codes().verify(PresentedCode.link(link)))
                .isEqualTo(new VerifyResult.Valid(user, CodeType.PASSWORD_RESET));
    }

    @Test
    void aCodeExpiresAfterFifteenMinutes() {
        String user = newUser();
        client.codes().send(SendCodeRequest.builder(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                emailOf(user)).codeLength(8).build());
        String code = codeSentTo(emailOf(user));
        assertThat(code).hasSize(8);

        server.clock().advance(Duration.ofMinutes(15));
        assertThat(client.codes().verify(PresentedCode.numeric(code, user, CodeType.EMAIL_VERIFICATION)))
                .isEqualTo(new VerifyResult.Invalid(InvalidCodeReason.EXPIRED));
    }

    @Test
    void aSecondCodeWithinTheCooldownIsRateLimitedWithRetryAfter() {
        String user = newUser();
        SendCodeRequest request = SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                emailOf(user));
        assertThat(client.codes().send(request).sent()).isTrue();
        server.clock().advance(Duration.ofSeconds(10));

        SendResult refused = client.codes().send(request);

        assertThat(refused).isInstanceOf(SendResult.RateLimited.class);
        SendResult.RateLimited limited = (SendResult.RateLimited) refused;
        assertThat(limited.action()).isEqualTo("RESEND_EMAIL_VERIFICATION");
        assertThat(limited.retryAfter()).isEqualTo(Duration.ofSeconds(20));
        assertThat(limited.resetsAt()).contains(TestServer.START.plusSeconds(30));
        assertThat(limited.smsBudgetExhausted()).isFalse();
        assertThat(limited.detail()).isNotBlank();

        server.clock().advance(limited.retryAfter());
        assertThat(client.codes().send(request).sent()).as("after the Retry-After").isTrue();
    }

    @Test
    void theSixthRequestForOneTargetIsRateLimitedWhateverTheUser() {
        String target = emailOf(newUser());
        List<SendResult> results = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            results.add(client.codes().send(SendCodeRequest.of(newUser(), CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, target)));
        }
        assertThat(results.subList(0, 5)).allMatch(SendResult::sent);
        assertThat(results.get(5)).isInstanceOfSatisfying(SendResult.RateLimited.class, limited -> {
            assertThat(limited.action()).isEqualTo("SEND_TO_TARGET");
            assertThat(limited.retryAfter()).isPositive();
        });
    }

    @Test
    void badInputIsAnInvalidInputExceptionNamingTheField() {
        assertThatThrownBy(() -> client.codes().send(SendCodeRequest.of("user#42", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "jane@example.com")))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).isEqualTo("INVALID_INPUT");
                    assertThat(e.field()).isEqualTo("userId");
                    assertThat(e.property("field")).contains("userId");
                    assertThat(e.detail()).isNotBlank();
                });
        assertThatThrownBy(() -> client.codes().send(SendCodeRequest.of(newUser(), CodeType.PHONE_VERIFICATION,
                DeliveryMethod.SMS, "not a number")))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
                        .isEqualTo("deliveryTarget"));
        assertThatThrownBy(() -> client.codes().send(SendCodeRequest.builder(newUser(), CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "jane@example.com").codeLength(4).build()))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
                        .isEqualTo("codeLength"));
        assertThatThrownBy(() -> client.codes().verify(PresentedCode.link("123456")))
                .isInstanceOf(InvalidInputException.class);
    }

    @Test
    void aWrongApiKeyIsUnauthorized() {
        VerificationClient wrong = VerificationClient.builder().baseUri(server.uri())
                .apiKey("not-the-key-0123456789abcdefghijklmno").build();
        assertThatThrownBy(() -> wrong.codes().check(PresentedCode.numeric("123456", newUser(),
                CodeType.EMAIL_VERIFICATION)))
                .isInstanceOfSatisfying(UnauthorizedException.class, e -> {
                    assertThat(e.status()).isEqualTo(401);
                    assertThat(e.code()).isEqualTo("UNAUTHORIZED");
                });
        assertThatThrownBy(wrong::devOutbox).isInstanceOf(UnauthorizedException.class);
    }

    @Test
    void theOutboxShowsTheNewestMessageFirst() {
        String user = newUser();
        Instant before = server.clock().instant();
        client.codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                emailOf(user)));
        OutboxMessage newest = client.devOutbox().get(0);
        assertThat(newest.channel()).isEqualTo(DeliveryMethod.EMAIL);
        assertThat(newest.to()).isEqualTo(emailOf(user));
        assertThat(newest.codeType()).isEqualTo(CodeType.EMAIL_VERIFICATION);
        assertThat(newest.body()).contains(newest.code());
        assertThat(newest.sentAt()).isEqualTo(before);
        assertThat(newest.toString()).doesNotContain(newest.code());
    }

    @Test
    void theUsersRateLimitsShowTheCountedSends() {
        String user = newUser();
        client.codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                emailOf(user)));

        List<RateLimit> limits = client.rateLimits(user);

        assertThat(limits).anySatisfy(limit -> {
            assertThat(limit.action()).isEqualTo("SEND_EMAIL_VERIFICATION");
            assertThat(limit.count()).isEqualTo(1);
            assertThat(limit.limit()).isEqualTo(5);
            assertThat(limit.windowStart()).isEqualTo(TestServer.START);
            assertThat(limit.resetsAt()).isEqualTo(TestServer.START.plus(Duration.ofMinutes(15)));
        });
        assertThat(client.rateLimits(newUser())).isNotEmpty().allSatisfy(limit -> assertThat(limit.count()).isZero());
    }
}

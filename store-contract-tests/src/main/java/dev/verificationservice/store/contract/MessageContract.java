package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.RegisteredDevice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Messages and what a code approves, failed deliveries, refused input, and what is never stored. */
public abstract class MessageContract extends ContractPart {

    protected MessageContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void aFailedDeliveryInvalidatesTheCodeAndIsAudited() {
        RecordingFailingSender down = new RecordingFailingSender();
        Verification failing = build(keys(), down, VerificationSettings.defaults());

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
        Verification failing = build(keys(), message -> {
            attempted.add(message.code());
            throw new IllegalStateException("SNS throttled the request for " + message.deliveryTarget());
        }, VerificationSettings.defaults());

        IssueResult result = failing.codes().issue(
                CodeRequest.of("alice", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+447700123456"));

        assertThat(result).isEqualTo(new IssueResult.DeliveryFailed(DeliveryMethod.SMS, "+44******3456"));
        assertThat(reasonOf(verification().codes().verify(
                VerifyRequest.numeric(attempted.get(0), "alice", CodeType.PHONE_VERIFICATION)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(allRawItems().toString()).doesNotContain("+447700123456");
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndWritesNothing() {
        assertField(() -> verification().codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.SMS, "+447700123456")), "deliveryMethod");
        assertField(() -> verification().codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "not-an-address")), "deliveryTarget");
        assertField(() -> verification().codes().issue(
                CodeRequest.of("alice", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "01234 567890")), "deliveryTarget");
        assertField(() -> verification().codes().issue(
                CodeRequest.of("USER#bob", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "a@example.com")), "userId");
        assertField(() -> verification().codes().verify(
                new VerifyRequest("123456", Optional.empty(), Optional.of(CodeType.EMAIL_VERIFICATION), ClientContext.none())),
                "userId");
        assertField(() -> verification().codes().verify(
                new VerifyRequest("123456", Optional.of("alice"), Optional.empty(), ClientContext.none())), "codeType");
        assertField(() -> verification().codes().verify(VerifyRequest.numeric("12ab", "alice", CodeType.EMAIL_VERIFICATION)),
                "code");
        assertField(() -> verification().devices().register(DeviceRegistration.of("alice", "phone#1", "IOS")), "deviceId");
        assertField(() -> verification().devices().verify("phone-1", "short", ClientContext.none()), "secret");
        assertField(() -> verification().audit().query("alice", Optional.empty(), Optional.empty(), Optional.of(101),
                Optional.empty()), "limit");
        assertField(() -> verification().audit().query("alice", Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of("bm90LWEtY3Vyc29y")), "cursor");
        assertField(() -> verification().audit().query("alice", Optional.empty(),
                Optional.of(Instant.parse("+10000-01-01T00:00:00Z")), Optional.empty(), Optional.empty()), "to");
        assertField(() -> verification().audit().query("alice", Optional.of(START), Optional.of(START.minusSeconds(1)),
                Optional.empty(), Optional.empty()), "from");
        assertField(() -> verification().codes().issue(
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
            assertField(() -> verification().codes().issue(send.withContext(context)), "context");
            assertField(() -> verification().codes().verify(VerifyRequest.numeric("123456", "ivy",
                    CodeType.EMAIL_VERIFICATION).withContext(context)), "context");
            assertField(() -> verification().codes().check(VerifyRequest.numeric("123456", "ivy",
                    CodeType.EMAIL_VERIFICATION).withContext(context)), "context");
        }
        assertField(() -> verification().devices().register(new DeviceRegistration("ivy", "pc-1", "WEB",
                Optional.of("Laptop \u202egnp.exe"), Optional.empty(), ClientContext.none())), "deviceName");
        assertThat(outbox().messages()).isEmpty();
        assertThat(allRawItems()).as("nothing written, not even a failed attempt").isEmpty();

        // Joiners move no text and emoji need them; the user agent is recorded with the override made visible.
        assertThat(verification().codes().issue(send.withContext("Pay 12 EUR for \ud83d\udc68\u200d\ud83d\udc69"
                + "\u200d\ud83d\udc67 tickets").withClient(ClientContext.of(null, "Agent \u202eevil", null))))
                .isInstanceOf(IssueResult.Issued.class);
        assertThat(verification().audit().query("ivy", Optional.empty(), Optional.empty(), Optional.of(10),
                Optional.empty()).entries()).extracting(entry -> entry.userAgent().orElseThrow())
                .containsExactly("Agent <U+202E>evil");
    }

    @Test
    void noCodeSecretOrFullTargetIsEverStored() {
        String code = sendEmailCode("alice");
        verification().codes().issue(CodeRequest.of("alice", CodeType.PASSWORD_RESET, DeliveryMethod.SMS, "+447700123456"));
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

    @Test
    void aNumericCodeSentForAPaymentVerifiesOnlyForThatPaymentAndTheTextIsNeverStored() {
        IssueResult sent = verification().codes().issue(CodeRequest.of("pia", CodeType.PHONE_VERIFICATION,
                DeliveryMethod.SMS, "+447700123498").withContext("Pay 120.00 EUR to ACME"));
        assertThat(sent).isInstanceOf(IssueResult.Issued.class);
        String code = latestCode();
        assertThat(outbox().messages().get(0).context()).contains("Pay 120.00 EUR to ACME");
        VerifyRequest plain = VerifyRequest.numeric(code, "pia", CodeType.PHONE_VERIFICATION);

        assertThat(reasonOf(verification().codes().check(plain))).as("without the context").isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verification().codes().check(plain.withContext("Pay 920.00 EUR to ACME"))))
                .as("for another payment").isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification().codes().verify(plain.withContext("Pay 120.00 EUR to ACME")).valid()).isTrue();
        assertThat(allRawItems().toString()).doesNotContain("ACME", "120.00");
    }

    @Test
    void aLinkSentForAPaymentIsUsedUpOnlyWithThatPayment() {
        verification().codes().issue(CodeRequest.of("quin", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "quin@example.com").withContext("Approve login from Firefox on Linux"));
        String link = latestCode();

        assertThat(reasonOf(verification().codes().verify(VerifyRequest.link(link)))).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(reasonOf(verification().codes().verify(VerifyRequest.link(link).withContext("Approve login from Safari"))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(verification().codes().verify(VerifyRequest.link(link).withContext("Approve login from Firefox on Linux"))
                .valid()).isTrue();
        // And a link sent without a context does not verify with one.
        clock().advance(Duration.ofSeconds(30));
        verification().codes().issue(CodeRequest.of("quin", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "quin@example.com"));
        assertThat(reasonOf(verification().codes().verify(VerifyRequest.link(latestCode()).withContext("anything"))))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(allRawItems().toString()).doesNotContain("Firefox");
    }

    @Test
    void theMessageLanguageIsTheRequestedOneAndTheAnswerAndAuditSayWhich() {
        IssueResult sent = verification().codes().issue(CodeRequest.of("rui", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "rui@example.com").withLocale(java.util.Locale.forLanguageTag("pt-BR")));

        assertThat(sent).isInstanceOfSatisfying(IssueResult.Issued.class,
                issued -> assertThat(issued.locale().toLanguageTag()).isEqualTo("pt-BR"));
        assertThat(outbox().messages().get(0).locale().toLanguageTag()).isEqualTo("pt-BR");
        assertThat(verification().audit().query("rui", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty())
                .entries().get(0).details()).containsEntry("locale", "pt-BR");
    }
}

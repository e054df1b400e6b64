package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.store.TestStore;
import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.assertj.core.api.Assertions;
import com.google.i18n.phonenumbers.PhoneNumberUtil.PhoneNumberType;

/** The SMS signals as the send path uses them: failing open on a store fault, and off when switched off. */
class SmsSignalsInTheSendTest {

    private static final String NUMBER = "+447700123456";

    private final Clock clock = Clock.fixed(Instant.parse("2026-12-03T10:00:00Z"), ZoneOffset.UTC);
    private final TestStore store = new TestStore();
    private final DevelopmentOutbox outbox = new DevelopmentOutbox(clock);

    private Verification verification(SmsSignalPolicy policy) {
        SecretKeyRing keys = SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom())));
        return Verification.builder().store(store).keys(keys).sender(outbox).clock(clock)
                .settings(VerificationSettings.defaults().withSmsSignals(policy)).build();
    }

    /** A reset link by SMS: no lock-out reads, so the only counter reads of its send are the range's. */
    private static CodeRequest resetBySms(String userId) {
        return CodeRequest.of(userId, CodeType.PASSWORD_RESET, DeliveryMethod.SMS, NUMBER);
    }

    private AuditEntry sent(Verification verification, String userId) {
        return verification.audit().query(userId, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()).entries().stream().filter(entry -> entry.eventType() == AuditEventType.CODE_SENT)
                .findFirst().orElseThrow();
    }

    @Test
    void aSignalThatCannotBeReadLetsTheSmsGoCountedAndNoted() {
        Verification verification = verification(SmsSignalPolicy.DEFAULTS);
        store.faults().fail("findCounters");

        assertThat(verification.codes().issue(resetBySms("uma"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(outbox.messages()).hasSize(1);
        assertThat(sent(verification, "uma").details()).containsEntry("signalUnavailable", "true");
        assertThat(verification.smsSignals().unavailableReads()).isEqualTo(1);
    }

    @Test
    void aSendCountThatCannotBeWrittenLosesTheCountNotTheSend() {
        Verification verification = verification(SmsSignalPolicy.DEFAULTS);
        store.faults().fail("takePlace:SMS_RANGE_SENT");

        assertThat(verification.codes().issue(resetBySms("una"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(sent(verification, "una").details()).doesNotContainKey("signalUnavailable");
        assertThat(verification.smsSignals().unavailableReads()).isEqualTo(1);
    }

    @Test
    void switchedOffTheSignalsReadAndCountNothing() {
        Verification verification = verification(SmsSignalPolicy.DEFAULTS.withEnabled(false));
        store.faults().fail("findCounters");
        store.faults().fail("takePlace:SMS_RANGE_SENT");

        assertThat(verification.codes().issue(resetBySms("ula"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(verification.smsSignals().unavailableReads()).isZero();
    }

    @Test
    void theRefusedKindsOfNumberAreASetting() {
        String fixedLine = "+442079460000";
        Assertions.assertThatThrownBy(() -> verification(SmsSignalPolicy.DEFAULTS).codes().issue(
                        CodeRequest.of("ida", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, fixedLine)))
                .isInstanceOfSatisfying(InvalidInputException.class,
                        refused -> assertThat(refused.field()).isEqualTo("deliveryTarget"));
        SmsSignalPolicy premiumOnly = new SmsSignalPolicy(true, false, SmsSignalPolicy.DEFAULTS.window(), 50, 0.25,
                SmsSignalPolicy.DEFAULTS.coolOff(), 8, SmsSignalPolicy.DEFAULTS.ranges(),
                EnumSet.of(PhoneNumberType.PREMIUM_RATE));
        assertThat(verification(premiumOnly).codes().issue(
                CodeRequest.of("ida", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, fixedLine)))
                .isInstanceOf(IssueResult.Issued.class);
    }
}

package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.sms.SmsSignals;
import org.junit.jupiter.api.Test;

/**
 * A number range's SMS breaker with the shipped defaults: it opens on many sends and few verifications, refuses,
 * closes on its own after the cool-off and is lifted by an operator, on the store's counters.
 */
public abstract class SmsBreakerContract extends ContractPart {

    private static final String RANGE = "+447700";

    protected SmsBreakerContract(ContractFixture fixture) {
        super(fixture);
    }

    /** The sends that open the breaker: the default minimum, one in ten verified (below one in four). */
    private void pump(SmsSignals signals, int run) {
        int sends = SmsSignalPolicy.DEFAULTS.minSends();
        for (int n = 0; n < sends; n++) {
            String number = number(run * 100 + n);
            assertThat(signals.check(number, false)).isInstanceOf(SmsSignals.Clear.class);
            signals.sent(number);
            if (n % 10 == 0) {
                signals.verified(number);
            }
        }
    }

    private static String number(int n) {
        return RANGE + String.format("%06d", 900000 + n);
    }

    @Test
    void aRangeSendingWithoutVerificationsIsRefusedUntilItsCoolOffEnds() {
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(0)).orElseThrow();
        pump(signals, 0);

        SmsSignals.Verdict first = signals.check(number(99), false);
        assertThat(first).isInstanceOfSatisfying(SmsSignals.Blocked.class, blocked -> {
            assertThat(blocked.opened()).isTrue();
            assertThat(blocked.figures().sent()).isEqualTo(50);
            assertThat(blocked.figures().verified()).isEqualTo(5);
        });
        assertThat(signals.check(number(98), false)).isInstanceOfSatisfying(SmsSignals.Blocked.class,
                blocked -> assertThat(blocked.opened()).as("opened once").isFalse());
        assertThat(signals.check(number(97), true)).as("a caller that checked a human")
                .isInstanceOf(SmsSignals.Bypassed.class);
        assertThat(signals.check("+447911123456", false)).as("another range").isInstanceOf(SmsSignals.Clear.class);
        assertThat(signals.history(range)).extracting(AuditEntry::eventType)
                .containsExactly(AuditEventType.SMS_RANGE_BLOCKED);

        clock().advance(SmsSignalPolicy.DEFAULTS.coolOff().multipliedBy(2));
        assertThat(signals.check(number(96), false)).as("closed on its own").isInstanceOf(SmsSignals.Clear.class);
    }

    @Test
    void anOperatorLiftsAnOpenBreaker() {
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(0)).orElseThrow();
        pump(signals, 1);
        assertThat(signals.check(number(99), false).refuses()).isTrue();

        assertThat(verification().operator().liftSmsBreaker(range, "ops-key", ClientContext.none())).isTrue();
        assertThat(verification().operator().smsRange(range).openUntil()).isEmpty();
        assertThat(signals.check(number(99), false)).isInstanceOfSatisfying(SmsSignals.Clear.class,
                clear -> assertThat(clear.figures().sent()).as("its figures start afresh").isZero());
        assertThat(verification().operator().liftSmsBreaker(range, "ops-key", ClientContext.none()))
                .as("lifted twice: nothing more").isFalse();
        assertThat(signals.history(range)).extracting(AuditEntry::eventType)
                .containsExactlyInAnyOrder(AuditEventType.SMS_RANGE_BLOCKED, AuditEventType.SMS_RANGE_RELEASED);
    }
}

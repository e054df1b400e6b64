package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditPage;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.LiveCode;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The operator's API: lifting a lock-out, invalidating codes, revoking devices, the timeline and the activity. */
public abstract class OperatorContract extends ContractPart {

    protected OperatorContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void anOperatorLiftsALockOutAndTheCorrectCodeThenVerifiesWithTheLiftAudited() {
        String code = sendEmailCode("lou");
        for (int i = 0; i < 5; i++) {
            verifyEmailCode("lou", wrongCode(code));
        }
        assertThat(reasonOf(verifyEmailCode("lou", wrongCode(code)))).isEqualTo(FailureReason.TOO_MANY_ATTEMPTS);
        verification().rateLimiter().acquire("lou", "SEND_PHONE_VERIFICATION", FIVE);

        int cleared = verification().operator().liftRateLimit("lou", "VERIFY_EMAIL_VERIFICATION", "key-1a2b", ClientContext.none());

        assertThat(cleared).isEqualTo(1);
        assertThat(verification().rateLimiter().current("lou", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isZero();
        assertThat(verification().rateLimiter().current("lou", "SEND_PHONE_VERIFICATION", FIVE).count())
                .as("other actions keep their counts").isEqualTo(1);
        // The lock-out invalidated the old code; a new one verifies now.
        clock().advance(Duration.ofSeconds(30));
        String fresh = sendEmailCode("lou");
        assertThat(verifyEmailCode("lou", fresh).valid()).isTrue();
        AuditEntry lifted = verification().audit().query("lou", Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries().stream().filter(entry -> entry.eventType() == AuditEventType.RATE_LIMIT_RESET)
                .findFirst().orElseThrow();
        assertThat(lifted.details()).containsEntry("action", "VERIFY_EMAIL_VERIFICATION")
                .containsEntry("operatorKeyId", "key-1a2b").containsEntry("windowsCleared", "1");
        assertThatThrownBy(() -> verification().operator().liftRateLimit("lou", "NOT_AN_ACTION", "key-1a2b",
                ClientContext.none())).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("action"));
    }

    @Test
    void anOperatorInvalidatesEveryLiveCodeOfAUserAndTheOverviewShowsNoDigest() {
        sendEmailCode("max");
        clock().advance(Duration.ofSeconds(40));
        verification().codes().issue(CodeRequest.of("max", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "max@example.com"));
        indexCatchesUp();
        assertThat(verification().operator().overview("max").liveCodes()).extracting(LiveCode::codeType)
                .containsExactly(CodeType.PASSWORD_RESET, CodeType.EMAIL_VERIFICATION);
        assertThat(verification().operator().overview("max").toString()).doesNotContain(
                store().codes().findCodes("max", CodeType.EMAIL_VERIFICATION).get(0).digest());

        assertThat(verification().operator().invalidateCodes("max", "key-9f", ClientContext.none())).isEqualTo(2);

        indexCatchesUp();
        assertThat(verification().operator().overview("max").liveCodes()).isEmpty();
        assertThat(verification().audit().query("max", Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries()).filteredOn(entry -> entry.eventType() == AuditEventType.CODES_INVALIDATED)
                .hasSize(2).allSatisfy(entry -> assertThat(entry.details()).containsEntry("operatorKeyId", "key-9f")
                        .containsEntry("reason", "OPERATOR"));
    }

    @Test
    void anOperatorRevokesOneDeviceAndThenAllWithTheKeyIdAudited() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        RegisteredDevice phone = registerDevice("opal", "phone-1");
        RegisteredDevice laptop = registerDevice("opal", "laptop-1");

        assertThat(verification().operator().revokeDevice("opal", "phone-1", "adm-0123456789ab", ClientContext.none()))
                .isEqualTo(1);

        assertThat(verification().devices().verify("phone-1", phone.secret(), ClientContext.none()).valid()).isFalse();
        assertThat(verification().devices().verify("laptop-1", laptop.secret(), ClientContext.none()).valid()).isTrue();
        // Revoke-all counts what the index shows (its marker refuses the rest whatever the count says).
        indexCatchesUp();
        assertThat(verification().operator().revokeAllDevices("opal", "adm-0123456789ab", ClientContext.none()))
                .isEqualTo(1);
        assertThat(verification().devices().verify("laptop-1", laptop.secret(), ClientContext.none()).valid()).isFalse();
        List<AuditEntry> entries = verification().audit().query("opal", Optional.empty(), Optional.empty(),
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
            verification().audit().recordSuccess("tim", AuditEventType.CODE_SENT, Map.of("n", Integer.toString(i)),
                    ClientContext.none());
            sent.add(clock().instant());
            clock().advance(Duration.ofSeconds(1));
            verification().audit().recordFailure("tim", AuditEventType.CODE_VERIFICATION_FAILED, "NOT_FOUND", Map.of(),
                    ClientContext.none());
            clock().advance(Duration.ofSeconds(1));
        }
        Instant from = START;
        Instant to = clock().instant();
        Set<AuditEventType> onlySent = Set.of(AuditEventType.CODE_SENT);

        AuditPage first = verification().operator().timeline("tim", from, to, onlySent, 3, Optional.empty());
        AuditPage second = verification().operator().timeline("tim", from, to, onlySent, 3, first.nextCursor());
        AuditPage third = verification().operator().timeline("tim", from, to, onlySent, 3, second.nextCursor());

        List<String> order = new ArrayList<>();
        for (AuditPage page : List.of(first, second, third)) {
            page.entries().forEach(entry -> {
                assertThat(entry.eventType()).isEqualTo(AuditEventType.CODE_SENT);
                order.add(entry.details().get("n"));
            });
        }
        assertThat(order).containsExactly("6", "5", "4", "3", "2", "1", "0");
        assertThat(third.nextCursor()).isEmpty();
        assertThat(verification().operator().timeline("tim", from, to, Set.of(), 100, Optional.empty()).entries())
                .hasSize(14);
        assertThat(verification().operator().timeline("tim", sent.get(5), to, Set.of(AuditEventType.CODE_VERIFICATION_FAILED),
                100, Optional.empty()).entries()).hasSize(2).allSatisfy(entry -> assertThat(entry.success()).isFalse());
    }

    @Test
    void theActivityCountsEventsAndFailuresPerPeriod() {
        verification().audit().recordSuccess("ava", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());
        verification().audit().recordFailure("ava", AuditEventType.CODE_VERIFICATION_FAILED, "NOT_FOUND", Map.of(),
                ClientContext.none());
        clock().advance(Duration.ofMinutes(90));
        verification().audit().recordSuccess("ava", AuditEventType.CODE_VERIFIED, Map.of(), ClientContext.none());

        OperatorService.Activity activity = verification().operator().activity("ava", START.minus(Duration.ofHours(1)),
                clock().instant(), Duration.ofHours(1), Set.of());

        // 09:00, 10:00 and 11:00 (11:30 is the end of the range).
        assertThat(activity.buckets()).extracting(OperatorService.ActivityBucket::start).containsExactly(
                START.minus(Duration.ofHours(1)), START, START.plus(Duration.ofHours(1)));
        assertThat(activity.buckets()).extracting(OperatorService.ActivityBucket::successes).containsExactly(0, 1, 1);
        assertThat(activity.buckets()).extracting(OperatorService.ActivityBucket::failures).containsExactly(0, 1, 0);
        assertThat(activity.events()).isEqualTo(3);
        assertThat(activity.failures()).isEqualTo(1);
        assertThat(activity.peak()).isEqualTo(2);
        assertThat(activity.truncated()).isFalse();
        assertThat(verification().operator().activity("ava", START, clock().instant(), Duration.ofHours(1),
                Set.of(AuditEventType.CODE_VERIFIED)).events()).isEqualTo(1);
    }
}

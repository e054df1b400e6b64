package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.store.StoreException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every write is correct when it runs twice (a lost answer and a retry). */
public abstract class RetryContract extends ContractPart {

    protected RetryContract(ContractFixture fixture) {
        super(fixture);
    }

    /**
     * A take holds no mark, so one sent again (its answer lost) counts again: at most once more per retry, never
     * less than what happened. A give-back is named by its attempt and counts down once however often it is sent,
     * other attempts' give-backs between them.
     */
    @Test
    void aRetriedTakeOverCountsAtMostOnceAndNeverUnderCountsAndARetriedGiveBackCountsDownOnce() {
        Place first = placeOf("ria", "SEND_EMAIL_VERIFICATION", "attempt-1");
        Place second = placeOf("ria", "SEND_EMAIL_VERIFICATION", "attempt-2");
        Place third = placeOf("ria", "SEND_EMAIL_VERIFICATION", "attempt-3");

        assertThat(store().counters().takePlace(first, 5)).isEqualTo(1);
        assertThat(store().counters().takePlace(first, 5)).as("the same take again: counted once more").isEqualTo(2);
        assertThat(store().counters().takePlace(second, 5)).isEqualTo(3);
        assertThat(store().counters().takePlace(third, 5)).isEqualTo(4);
        assertThat(verification().rateLimiter().current("ria", "SEND_EMAIL_VERIFICATION", FIVE).count())
                .as("three attempts, one retry: over by the retry, never under").isEqualTo(4);

        store().counters().givePlaceBack(second);
        store().counters().givePlaceBack(third);
        store().counters().givePlaceBack(second);
        store().counters().givePlaceBack(third);
        assertThat(verification().rateLimiter().current("ria", "SEND_EMAIL_VERIFICATION", FIVE).count())
                .as("each place given back twice counts down once").isEqualTo(2);
    }

    @Test
    void aGiveBackOfACounterAtZeroOrResetCountsNothingDown() {
        Place place = placeOf("rex", "SEND_EMAIL_VERIFICATION", "attempt-1");
        store().counters().givePlaceBack(place);
        assertThat(verification().rateLimiter().current("rex", "SEND_EMAIL_VERIFICATION", FIVE).count()).isZero();

        assertThat(store().counters().takePlace(place, 5)).isEqualTo(1);
        store().counters().givePlaceBack(place);
        store().counters().givePlaceBack(placeOf("rex", "SEND_EMAIL_VERIFICATION", "attempt-2"));
        assertThat(verification().rateLimiter().current("rex", "SEND_EMAIL_VERIFICATION", FIVE).count())
                .as("never below zero").isZero();
    }

    @Test
    void atTheCeilingNothingIsCountedAndARetryIsRefusedLikeAnyOther() {
        for (int i = 1; i <= 3; i++) {
            assertThat(store().counters().takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a" + i), 3)).isEqualTo(i);
        }
        assertThat(store().counters().takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a4"), 3)).isEqualTo(4);
        assertThat(store().counters().takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a5"), 3)).isEqualTo(4);
        assertThat(store().counters().takePlace(placeOf("sam", "VERIFY_EMAIL_VERIFICATION", "a2"), 3)).isEqualTo(4);
        assertThat(verification().rateLimiter().current("sam", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(3);
    }

    @Test
    void aRetriedPlacementOfTheSameCodeIsStoredOnceAndAnotherRequestsEqualCodeIsACollision() {
        for (CodeFormat format : CodeFormat.values()) {
            VerificationCode code = new VerificationCode("digest-of-a-" + format + "-code", "tia",
                    CodeType.EMAIL_VERIFICATION, format, DeliveryMethod.EMAIL, "t***@example.com", false, START,
                    START.plusSeconds(900));

            assertThat(store().codes().placeCode(code, "issue-1-" + format)).isEqualTo(new CodePlacement.Placed(
                    format == CodeFormat.NUMERIC ? List.of() : List.of(codeOf(CodeFormat.NUMERIC))));
            assertThat(store().codes().placeCode(code, "issue-1-" + format)).as("a retry of the same placement")
                    .isEqualTo(new CodePlacement.Placed(List.of()));
            assertThat(store().codes().placeCode(code, "issue-2-" + format)).as("another request's equal code")
                    .isEqualTo(new CodePlacement.KeyTaken());
            indexCatchesUp();
            assertThat(store().codes().findCodes("tia", CodeType.EMAIL_VERIFICATION)).containsExactly(code);
        }
    }

    private static VerificationCode codeOf(CodeFormat format) {
        return new VerificationCode("digest-of-a-" + format + "-code", "tia", CodeType.EMAIL_VERIFICATION, format,
                DeliveryMethod.EMAIL, "t***@example.com", false, START, START.plusSeconds(900));
    }

    @Test
    void aRetriedAuditAppendWritesOneEntry() {
        AuditEntry entry = verification().audit().newEntry("uma", AuditEventType.CODE_SENT, true, Optional.empty(),
                Map.of("codeType", "EMAIL_VERIFICATION"), ClientContext.none());

        assertThat(store().audit().appendAudit(entry)).isTrue();
        assertThat(store().audit().appendAudit(entry)).as("a retry of the same append").isTrue();
        AuditEntry other = new AuditEntry("uma", entry.timestamp(), entry.entryId(), AuditEventType.CODE_VERIFIED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), entry.expiresAt());
        assertThat(store().audit().appendAudit(other)).as("another entry on the same key").isFalse();
        assertThat(auditTypes("uma")).containsExactly(AuditEventType.CODE_SENT);
    }

    @Test
    void aRetriedConsumeIsTheSameSuccessWithOneAuditEntryAndOneGiveBack() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        String code = sendEmailCode("vic");
        indexCatchesUp();
        String digest = store().codes().findCodes("vic", CodeType.EMAIL_VERIFICATION).get(0).digest();
        Place place = placeOf("vic", "VERIFY_EMAIL_VERIFICATION", "guess-1");
        assertThat(store().counters().takePlace(place, 5)).isEqualTo(1);
        AuditEntry verified = verification().audit().newEntry("vic", AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                Map.of(), ClientContext.none());
        CodeConsumption consumption = new CodeConsumption(digest, "vic", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START,
                "consume-1", verified, Optional.of(place));

        assertThat(store().codes().consumeCode(consumption)).isEqualTo(new ConsumeOutcome.Consumed());
        assertThat(store().codes().consumeCode(consumption)).as("the same attempt again").isEqualTo(new ConsumeOutcome.Consumed());

        CodeConsumption another = new CodeConsumption(digest, "vic", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START, "consume-2",
                verification().audit().newEntry("vic", AuditEventType.CODE_VERIFIED, true, Optional.empty(), Map.of(),
                        ClientContext.none()), Optional.empty());
        assertThat(store().codes().consumeCode(another)).isInstanceOfSatisfying(ConsumeOutcome.Rejected.class,
                rejected -> assertThat(rejected.current()).hasValueSatisfying(stored -> assertThat(stored.used()).isTrue()));
        assertThat(auditTypes("vic")).containsExactly(AuditEventType.CODE_VERIFIED, AuditEventType.CODE_SENT);
        assertThat(verification().rateLimiter().current("vic", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isZero();
    }

    @Test
    void aConsumeWhoseAuditEntryCannotBeWrittenLeavesTheCodeUnusedAndTheCountAsItWas() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        String code = sendEmailCode("wes");
        String digest = store().codes().findCodes("wes", CodeType.EMAIL_VERIFICATION).get(0).digest();
        Place place = placeOf("wes", "VERIFY_EMAIL_VERIFICATION", "guess-1");
        store().counters().takePlace(place, 5);
        AuditEntry taken = verification().audit().recordSuccess("wes", AuditEventType.CODE_SENT, Map.of("n", "1"),
                ClientContext.none());
        AuditEntry sameKey = new AuditEntry("wes", taken.timestamp(), taken.entryId(), AuditEventType.CODE_VERIFIED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.empty(), true, Optional.empty(), taken.expiresAt());

        assertThatThrownBy(() -> store().codes().consumeCode(new CodeConsumption(digest, "wes",
                CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, START,
                "consume-1", sameKey, Optional.of(place)))).isInstanceOf(StoreException.class);

        assertThat(store().codes().findCurrentCode("wes", CodeType.EMAIL_VERIFICATION, digest))
                .hasValueSatisfying(stored -> assertThat(stored.used()).isFalse());
        assertThat(verification().rateLimiter().current("wes", "VERIFY_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(1);
        assertThat(verifyEmailCode("wes", code).valid()).as("the code still works").isTrue();
    }
}

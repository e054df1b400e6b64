package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.sms.SmsFigures;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsRangeRepository;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import dev.verificationservice.table.ItemAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A number range's SMS breaker with the shipped defaults: it opens on many sends and few verifications, refuses,
 * closes on its own after the cool-off and is lifted by an operator, on the store's counters. A country's breaker
 * does the same over the country's shards, with its thresholds lowered here so that a test sends few SMS.
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
        return RANGE + String.format("%06d", 123000 + n);
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
    void anOpeningWhoseAnswerIsLostIsRecordedOnce() {
        Optional<AnswerLosingStore> losing = answerLosingStore();
        assumeTrue(losing.isPresent(), "nothing lies between this store and its data to lose an answer");
        SmsSignals signals = on(losing.get().store()).smsSignals();
        SmsRange range = signals.rangeOf(number(0)).orElseThrow();
        pump(signals, 3);

        losing.get().loseNextAnswerTo("UpdateItem", "SMS_BREAKER");
        assertThat(signals.check(number(99), false)).isInstanceOfSatisfying(SmsSignals.Blocked.class,
                blocked -> assertThat(blocked.opened()).as("the take was sent again: place 2").isTrue());
        assertThat(losing.get().answersLost()).as("the opening write met the fault").isEqualTo(1);
        assertThat(signals.check(number(98), false)).isInstanceOfSatisfying(SmsSignals.Blocked.class,
                blocked -> assertThat(blocked.opened()).isFalse());
        assertThat(signals.history(range)).extracting(AuditEntry::eventType)
                .containsExactly(AuditEventType.SMS_RANGE_BLOCKED);
    }

    @Test
    void aCountrysOpeningWhoseAnswersAreLostIsRecordedAndListedOnce() {
        Optional<AnswerLosingStore> losing = answerLosingStore();
        assumeTrue(losing.isPresent(), "nothing lies between this store and its data to lose an answer");
        Verification small = on(losing.get().store(), SMALL_COUNTRY_SETTINGS);
        SmsSignals signals = small.smsSignals();
        pumpCountry(signals);
        clock().advance(SMALL_COUNTRY.refresh());

        losing.get().loseNextAnswerTo("PutItem", "COUNTRY#GB");
        losing.get().loseNextAnswerTo("UpdateItem", "SMS_BREAKER");
        assertThat(signals.check(spread(91), false)).isInstanceOfSatisfying(SmsSignals.Blocked.class, blocked -> {
            assertThat(blocked.scope()).isEqualTo(SmsSignals.Scope.COUNTRY);
            assertThat(blocked.opened()).as("the entry and the take were sent again").isTrue();
        });
        assertThat(losing.get().answersLost()).as("the list entry's and the breaker's writes met the fault")
                .isEqualTo(2);
        assertThat(small.smsSignals().check(spread(92), false)).isInstanceOfSatisfying(SmsSignals.Blocked.class,
                blocked -> assertThat(blocked.opened()).isFalse());
        assertThat(signals.countryHistory("GB")).extracting(AuditEntry::eventType)
                .containsExactly(AuditEventType.SMS_RANGE_BLOCKED);
        assertThat(small.operator().smsCountries()).extracting(open -> open.state().country()).containsExactly("GB");
    }

    @Test
    void simultaneousChecksThatOpenABreakerRecordItOnce() throws Exception {
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(0)).orElseThrow();
        pump(signals, 4);

        List<SmsSignals.Verdict> verdicts = runConcurrently(8, () -> signals.check(number(99), false));
        assertThat(verdicts).allMatch(SmsSignals.Verdict::refuses);
        assertThat(verdicts).filteredOn(verdict -> ((SmsSignals.Blocked) verdict).opened()).hasSize(1);
        assertThat(signals.history(range)).extracting(AuditEntry::eventType)
                .containsExactly(AuditEventType.SMS_RANGE_BLOCKED);
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

    private IssueResult sendSms(String userId, String number, boolean humanVerified) {
        return verification().codes().issue(CodeRequest.of(userId, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS,
                number).withHumanVerified(humanVerified));
    }

    private Map<String, String> lastDetails(String userId) {
        return verification().audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(1),
                Optional.empty()).entries().get(0).details();
    }

    @Test
    void aCodeToARangeWhoseBreakerIsOpenIsRefusedUnlessACallerVouchedForAHuman() {
        SmsSignals signals = verification().smsSignals();
        pump(signals, 2);

        assertThat(sendSms("pia", number(99), false)).isInstanceOfSatisfying(IssueResult.RangeBlocked.class,
                blocked -> {
                    assertThat(blocked.smsRange()).isEqualTo(RANGE);
                    assertThat(blocked.retryAfterSeconds()).isPositive();
                });
        assertThat(outbox().messages()).as("nothing went out").isEmpty();
        assertThat(lastDetails("pia")).containsEntry("action", "SMS_BREAKER").containsEntry("smsRange", RANGE);
        assertThat(signals.read(signals.rangeOf(number(99)).orElseThrow()).figures().sent())
                .as("a refused SMS is not counted as sent").isEqualTo(50);

        assertThat(sendSms("pia", number(99), true)).isInstanceOf(IssueResult.Issued.class);
        assertThat(lastDetails("pia")).containsEntry("humanVerified", "true").containsEntry("smsRange", RANGE);
        assertThat(sendSms("quin", "+447911123456", false)).as("another range").isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void anSmsCodeCountsInItsRangeWhenSentAndAgainWhenVerified() {
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(1)).orElseThrow();
        assertThat(sendSms("rhea", number(1), false)).isInstanceOf(IssueResult.Issued.class);
        assertThat(signals.read(range).figures()).extracting("sent", "verified").containsExactly(1L, 0L);
        assertThat(verification().codes().verify(VerifyRequest.numeric(latestCode(), "rhea",
                CodeType.PHONE_VERIFICATION))).isInstanceOf(VerificationResult.Valid.class);
        assertThat(signals.read(range).figures()).extracting("sent", "verified").containsExactly(1L, 1L);

        // A reset link by SMS is read before its consume: the range comes from that read.
        assertThat(verification().codes().issue(CodeRequest.of("rhea", CodeType.PASSWORD_RESET, DeliveryMethod.SMS,
                number(2)))).isInstanceOf(IssueResult.Issued.class);
        assertThat(verification().codes().verify(VerifyRequest.link(latestCode())))
                .isInstanceOf(VerificationResult.Valid.class);
        assertThat(signals.read(range).figures()).extracting("sent", "verified").containsExactly(2L, 2L);
        assertThat(signals.readCountry("GB").figures()).as("and in its country")
                .extracting("sent", "verified").containsExactly(2L, 2L);
    }

    /** A country breaker opening at 20 sends with fewer than one in four verified, read every 10 seconds. */
    private static final SmsSignalPolicy.CountryBreaker SMALL_COUNTRY =
            new SmsSignalPolicy.CountryBreaker(20, 0.25, Duration.ofSeconds(10));

    private static final VerificationSettings SMALL_COUNTRY_SETTINGS = VerificationSettings.defaults()
            .withSmsSignals(SmsSignalPolicy.DEFAULTS.withCountry(SMALL_COUNTRY));

    private Verification withSmallCountryBreaker() {
        return build(keys(), outbox(), SMALL_COUNTRY_SETTINGS);
    }

    /** Two SMS to each of ten ranges of GB (no range near its own threshold), one in ten verified. */
    private static void pumpCountry(SmsSignals signals) {
        for (int n = 0; n < SMALL_COUNTRY.minSends(); n++) {
            String number = spread(n);
            assertThat(signals.check(number, false)).isInstanceOf(SmsSignals.Clear.class);
            signals.sent(number);
            if (n % 10 == 0) {
                signals.verified(number);
            }
        }
    }

    private static String spread(int n) {
        return String.format("+44770%d%06d", n % 10, 100000 + n);
    }

    @Test
    void aCountrySendingWithoutVerificationsIsRefusedUntilItsCoolOffEnds() {
        SmsSignals signals = withSmallCountryBreaker().smsSignals();
        pumpCountry(signals);
        assertThat(signals.check(spread(90), false)).as("judged on what the instance read last")
                .isInstanceOf(SmsSignals.Clear.class);

        clock().advance(SMALL_COUNTRY.refresh());
        assertThat(signals.check(spread(91), false)).isInstanceOfSatisfying(SmsSignals.Blocked.class, blocked -> {
            assertThat(blocked.scope()).isEqualTo(SmsSignals.Scope.COUNTRY);
            assertThat(blocked.opened()).isTrue();
            assertThat(blocked.figures()).extracting("sent", "verified").containsExactly(20L, 2L);
        });
        assertThat(signals.check("+447911123456", false)).as("another range of the country")
                .isInstanceOfSatisfying(SmsSignals.Blocked.class, blocked -> assertThat(blocked.opened()).isFalse());
        assertThat(signals.check("+447911123457", true)).as("a caller that checked a human")
                .isInstanceOfSatisfying(SmsSignals.Bypassed.class,
                        bypassed -> assertThat(bypassed.scope()).isEqualTo(SmsSignals.Scope.COUNTRY));
        assertThat(signals.check("+33612345678", false)).as("another country").isInstanceOf(SmsSignals.Clear.class);
        assertThat(signals.countryHistory("GB")).singleElement().satisfies(entry -> {
            assertThat(entry.eventType()).isEqualTo(AuditEventType.SMS_RANGE_BLOCKED);
            assertThat(entry.details()).containsEntry("scope", "country").containsEntry("country", "GB")
                    .containsEntry("sent", "20").containsEntry("verified", "2");
        });
        assertThat(withSmallCountryBreaker().smsSignals().check(spread(92), false))
                .as("another instance, at its first read of the country")
                .isInstanceOfSatisfying(SmsSignals.Blocked.class, blocked -> assertThat(blocked.opened()).isFalse());

        clock().advance(SmsSignalPolicy.DEFAULTS.coolOff().multipliedBy(2));
        assertThat(signals.check(spread(93), false)).as("closed on its own").isInstanceOf(SmsSignals.Clear.class);
    }

    @Test
    void anOperatorLiftsACountrysOpenBreaker() {
        Verification small = withSmallCountryBreaker();
        SmsSignals signals = small.smsSignals();
        pumpCountry(signals);
        clock().advance(SMALL_COUNTRY.refresh());
        assertThat(signals.check(spread(91), false).refuses()).isTrue();

        assertThat(small.operator().liftSmsCountryBreaker("GB", "ops-key", ClientContext.none())).isTrue();
        assertThat(small.operator().smsCountry("GB").openUntil()).isEmpty();
        assertThat(signals.check(spread(91), false)).as("at once on the lifting instance")
                .isInstanceOf(SmsSignals.Clear.class);
        assertThat(small.operator().smsCountry("GB").figures().sent()).as("its figures start afresh").isZero();
        assertThat(small.operator().liftSmsCountryBreaker("GB", "ops-key", ClientContext.none()))
                .as("lifted twice: nothing more").isFalse();
        assertThat(small.operator().smsCountryHistory("GB")).extracting(AuditEntry::eventType)
                .containsExactlyInAnyOrder(AuditEventType.SMS_RANGE_BLOCKED, AuditEventType.SMS_RANGE_RELEASED);
    }

    @Test
    void operatorsListAnOpenCountryBreakerWithItsFiguresUntilItIsLiftedOrClosesOnItsOwn() {
        Verification small = withSmallCountryBreaker();
        SmsSignals signals = small.smsSignals();
        assertThat(small.operator().smsCountries()).isEmpty();
        pumpCountry(signals);
        clock().advance(SMALL_COUNTRY.refresh());
        Instant opening = clock().instant();
        SmsSignals.Verdict first = signals.check(spread(91), false);
        assertThat(first).isInstanceOf(SmsSignals.Blocked.class);
        assertThat(signals.check(spread(92), false).refuses()).as("judged again: listed once").isTrue();

        assertThat(small.operator().smsCountries()).singleElement().satisfies(open -> {
            assertThat(open.state().country()).isEqualTo("GB");
            assertThat(open.state().figures()).extracting("sent", "verified").containsExactly(20L, 2L);
            assertThat(open.openedAt()).isEqualTo(opening);
            assertThat(open.state().openUntil()).contains(((SmsSignals.Blocked) first).until());
        });
        assertThat(small.operator().smsRanges().openBreakers()).as("no range's breaker opened").isEmpty();

        small.operator().liftSmsCountryBreaker("GB", "ops-key", ClientContext.none());
        assertThat(small.operator().smsCountries()).as("lifted").isEmpty();

        pumpCountry(signals);
        clock().advance(SMALL_COUNTRY.refresh());
        assertThat(signals.check(spread(91), false).refuses()).isTrue();
        assertThat(small.operator().smsCountries()).hasSize(1);
        clock().advance(SmsSignalPolicy.DEFAULTS.coolOff().multipliedBy(2));
        assertThat(small.operator().smsCountries()).as("closed on its own").isEmpty();
    }

    @Test
    void aCodeToACountryWhoseBreakerIsOpenIsRefusedNamingTheCountry() {
        Verification small = withSmallCountryBreaker();
        pumpCountry(small.smsSignals());
        clock().advance(SMALL_COUNTRY.refresh());

        assertThat(small.codes().issue(CodeRequest.of("tess", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS,
                "+447911123456"))).isInstanceOfSatisfying(IssueResult.RangeBlocked.class, blocked -> {
                    assertThat(blocked.scope()).isEqualTo(SmsSignals.Scope.COUNTRY);
                    assertThat(blocked.country()).isEqualTo("GB");
                    assertThat(blocked.retryAfterSeconds()).isPositive();
                });
        assertThat(outbox().messages()).as("nothing went out").isEmpty();
        assertThat(lastDetails("tess")).containsEntry("action", "SMS_BREAKER").containsEntry("scope", "country")
                .containsEntry("country", "GB");
    }

    @Test
    void operatorsListAnOpenBreakerWithItsFiguresUntilItIsLiftedOrClosesOnItsOwn() {
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(0)).orElseThrow();
        assertThat(verification().operator().smsRanges().openBreakers()).isEmpty();
        pump(signals, 4);
        assertThat(signals.check(number(99), false).refuses()).isTrue();

        SmsSignals.Overview overview = verification().operator().smsRanges();
        assertThat(overview.openBreakers()).singleElement().satisfies(open -> {
            assertThat(open.range().prefix()).isEqualTo(RANGE);
            assertThat(open.range().country()).isEqualTo("GB");
            assertThat(open.figures()).extracting("sent", "verified").containsExactly(50L, 5L);
            assertThat(open.openUntil()).isPresent();
        });
        assertThat(overview.worst()).extracting(state -> state.range().prefix()).containsExactly(RANGE);

        verification().operator().liftSmsBreaker(range, "ops-key", ClientContext.none());
        assertThat(verification().operator().smsRanges().openBreakers()).as("lifted").isEmpty();

        pump(signals, 5);
        assertThat(signals.check(number(99), false).refuses()).isTrue();
        assertThat(verification().operator().smsRanges().openBreakers()).hasSize(1);
        clock().advance(SmsSignalPolicy.DEFAULTS.coolOff().multipliedBy(2));
        assertThat(verification().operator().smsRanges().openBreakers()).as("closed on its own").isEmpty();
    }

    @Test
    void theWorstRangesAreThoseWhoseSendsReachedTheWatchFigureLowestConversionFirst() {
        SmsSignals signals = verification().smsSignals();
        int figure = signals.watchFigure();
        for (int n = 0; n < figure; n++) {
            signals.sent("+447700" + String.format("%06d", 200000 + n));
            signals.sent("+447911" + String.format("%06d", 200000 + n));
            signals.verified("+447911" + String.format("%06d", 200000 + n));
            if (n < figure - 1) {
                signals.sent("+447400" + String.format("%06d", 200000 + n));
            }
        }
        assertThat(verification().operator().smsRanges().worst())
                .as("one send short of the figure: not watched")
                .extracting(state -> state.range().prefix(), state -> state.figures().sent(),
                        state -> state.figures().verified())
                .containsExactly(tuple("+447700", (long) figure, 0L),
                        tuple("+447911", (long) figure, (long) figure));
        assertThat(verification().operator().smsRanges().openBreakers()).isEmpty();

        clock().advance(SmsSignalPolicy.DEFAULTS.window().multipliedBy(2));
        assertThat(verification().operator().smsRanges().worst()).as("two windows later").isEmpty();
    }

    @Test
    void anAllowedRangeIsNeverRefusedAndIsListedWithItsOperatorUntilTheAllowIsRemoved() {
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(0)).orElseThrow();
        assertThat(verification().operator().allowSmsRange(range, "ops-key", ClientContext.none())).isTrue();
        assertThat(verification().operator().allowSmsRange(range, "ops-key", ClientContext.none()))
                .as("allowed twice: nothing more").isFalse();
        pump(signals, 6);

        assertThat(signals.check(number(99), false)).as("past the thresholds, allowed")
                .isInstanceOf(SmsSignals.Clear.class);
        assertThat(sendSms("tova", number(99), false)).isInstanceOf(IssueResult.Issued.class);
        SmsSignals.Overview overview = verification().operator().smsRanges();
        assertThat(overview.openBreakers()).isEmpty();
        assertThat(overview.allowed()).singleElement().satisfies(allowed -> {
            assertThat(allowed.prefix()).isEqualTo(RANGE);
            assertThat(allowed.country()).isEqualTo("GB");
            assertThat(allowed.operatorKeyId()).contains("ops-key");
        });
        assertThat(verification().operator().smsRange(range).allowed()).isTrue();

        assertThat(verification().operator().disallowSmsRange(range, "ops-key", ClientContext.none())).isTrue();
        assertThat(verification().operator().disallowSmsRange(range, "ops-key", ClientContext.none()))
                .as("removed twice: nothing more").isFalse();
        assertThat(verification().operator().smsRanges().allowed()).isEmpty();
        assertThat(signals.check(number(98), false)).as("judged again").isInstanceOf(SmsSignals.Blocked.class);
        assertThat(signals.history(range)).extracting(AuditEntry::eventType).containsExactlyInAnyOrder(
                AuditEventType.SMS_RANGE_ALLOWED, AuditEventType.SMS_RANGE_DISALLOWED, AuditEventType.SMS_RANGE_BLOCKED);
        assertThat(signals.history(range)).filteredOn(entry -> entry.eventType() == AuditEventType.SMS_RANGE_ALLOWED)
                .singleElement().satisfies(entry -> assertThat(entry.details()).containsEntry("operatorKeyId", "ops-key"));
    }

    @Test
    void aRangeMarkWrittenTwiceIsOneMarkAndIsReadOnlyWhileLive() {
        SmsRangeRepository registry = store().smsRanges();
        Instant window = Instant.parse("2026-12-03T10:00:00Z");
        SmsRangeMark watch = new SmsRangeMark(SmsRangeMark.Kind.WATCH, window, RANGE, "GB", window.plusSeconds(60),
                new SmsFigures(25, 3), Optional.of(window.plusSeconds(7200)), Optional.empty());
        SmsRangeMark allowed = new SmsRangeMark(SmsRangeMark.Kind.ALLOWED, Instant.EPOCH, RANGE, "GB",
                window.plusSeconds(60), new SmsFigures(0, 0), Optional.empty(), Optional.of("ops-key"));
        registry.putMark(watch);
        registry.putMark(watch);
        registry.putMark(allowed);

        assertThat(registry.findMarks(SmsRangeMark.Kind.WATCH, window, window.plusSeconds(120), 10))
                .containsExactly(watch);
        assertThat(registry.findMarks(SmsRangeMark.Kind.WATCH, window, window.plusSeconds(7200), 10))
                .as("past its expiry, though the store still holds it").isEmpty();
        assertThat(registry.findMarks(SmsRangeMark.Kind.WATCH, window.minusSeconds(3600), window, 10))
                .as("another window").isEmpty();
        assertThat(registry.findMarks(SmsRangeMark.Kind.ALLOWED, Instant.EPOCH, window.plusSeconds(1_000_000_000L), 10))
                .as("an allow never expires").containsExactly(allowed);

        SmsRangeMark country = new SmsRangeMark(SmsRangeMark.Kind.COUNTRY_BREAKER, window, "", "GB",
                window.plusSeconds(60), new SmsFigures(1000, 20), Optional.of(window.plusSeconds(7200)),
                Optional.empty());
        SmsRangeMark otherCountry = new SmsRangeMark(SmsRangeMark.Kind.COUNTRY_BREAKER, window, "", "FR",
                window.plusSeconds(90), new SmsFigures(1200, 30), Optional.of(window.plusSeconds(7200)),
                Optional.empty());
        registry.putMark(country);
        registry.putMark(country);
        registry.putMark(otherCountry);
        assertThat(registry.findMarks(SmsRangeMark.Kind.COUNTRY_BREAKER, window, window.plusSeconds(120), 10))
                .as("one entry per country, none of the ranges'").containsExactlyInAnyOrder(country, otherCountry);
        assertThat(registry.findMarks(SmsRangeMark.Kind.BREAKER, window, window.plusSeconds(120), 10))
                .as("nor a country's among the ranges'").isEmpty();
        assertThat(registry.deleteMark(SmsRangeMark.Kind.COUNTRY_BREAKER, window, "GB")).isTrue();
        assertThat(registry.findMarks(SmsRangeMark.Kind.COUNTRY_BREAKER, window, window.plusSeconds(120), 10))
                .containsExactly(otherCountry);

        assertThat(registry.deleteMark(SmsRangeMark.Kind.WATCH, window, RANGE)).isTrue();
        assertThat(registry.deleteMark(SmsRangeMark.Kind.WATCH, window, RANGE)).as("deleted twice").isFalse();
        assertThat(registry.findMarks(SmsRangeMark.Kind.WATCH, window, window.plusSeconds(120), 10)).isEmpty();
    }

    @Test
    void anSmsCodeStoredWithoutItsRangeByThePreviousReleaseStillVerifiesAndCountsNothing() {
        assumeTrue(!(store() instanceof MemoryVerificationStore), "the memory store keeps records, not a release's items");
        SmsSignals signals = verification().smsSignals();
        SmsRange range = signals.rangeOf(number(3)).orElseThrow();
        assertThat(sendSms("sol", number(3), false)).isInstanceOf(IssueResult.Issued.class);
        // The previous release's shape: the same item without the range.
        allRawItems().stream().filter(item -> item.containsKey(ItemAttributes.SMS_RANGE)).toList().forEach(item -> {
            Map<String, Object> old = new LinkedHashMap<>(item);
            old.remove(ItemAttributes.SMS_RANGE);
            putRawItem(old);
        });
        assertThat(allRawItems()).noneMatch(item -> item.containsKey(ItemAttributes.SMS_RANGE));

        assertThat(verification().codes().verify(VerifyRequest.numeric(latestCode(), "sol",
                CodeType.PHONE_VERIFICATION))).isInstanceOf(VerificationResult.Valid.class);
        assertThat(signals.read(range).figures()).extracting("sent", "verified").containsExactly(1L, 0L);
    }
}

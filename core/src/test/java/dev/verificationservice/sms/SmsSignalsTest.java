package dev.verificationservice.sms;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SmsSignalsTest {

    private final Clock clock = Clock.fixed(Instant.parse("2026-12-03T10:20:00Z"), ZoneOffset.UTC);
    private final MemoryVerificationStore store = new MemoryVerificationStore();
    private final AuditLog audit = new AuditLog(store.audit(), clock, Optional.empty(), new SecureTokens());

    private SmsSignals signals(RateLimitRepository counters, SmsSignalPolicy policy) {
        return new SmsSignals(counters, audit, clock, UnitOfWork.SEPARATE_STEPS, policy, store.smsRanges());
    }

    @Test
    void aRangeIsTheCallingCodeAndTheFirstNationalDigits() {
        assertThat(NumberRanges.DEFAULTS.rangeOf("+447700900123").orElseThrow())
                .isEqualTo(new SmsRange(44, "7700", "GB"));
        assertThat(NumberRanges.DEFAULTS.rangeOf("+16505550123").orElseThrow().prefix()).isEqualTo("+1650555");
        assertThat(NumberRanges.DEFAULTS.rangeOf("not a number")).isEmpty();
    }

    @Test
    void aRangeAsAnOperatorWritesItIsReadBack() {
        assertThat(NumberRanges.rangeOfPrefix("+447700")).contains(new SmsRange(44, "7700", "GB"));
        assertThat(NumberRanges.rangeOfPrefix("+1650555").orElseThrow().prefix()).isEqualTo("+1650555");
        assertThat(NumberRanges.rangeOfPrefix("+3531")).contains(new SmsRange(353, "1", "IE"));
        assertThat(NumberRanges.rangeOfPrefix("447700")).isEmpty();
        assertThat(NumberRanges.rangeOfPrefix("+44")).isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new NumberRanges(4, java.util.Map.of(44, 0)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRangesCountryIsTheRegionItsPrefixLiesIn() {
        assertThat(NumberRanges.DEFAULTS.rangeOf("+14165550123").orElseThrow().country()).isEqualTo("CA");
        assertThat(NumberRanges.rangeOfPrefix("+1416555").orElseThrow().country()).isEqualTo("CA");
        assertThat(NumberRanges.rangeOfPrefix("+1876555").orElseThrow().country()).isEqualTo("JM");
        assertThat(NumberRanges.rangeOfPrefix("+447781").orElseThrow().country()).isEqualTo("GG");
        assertThat(NumberRanges.rangeOfPrefix("+1212555").orElseThrow().country()).isEqualTo("US");
    }

    @Test
    void aVerificationCountsInTheCountryItsSendCountedIn() {
        SmsSignals signals = signals(store.counters(), SmsSignalPolicy.DEFAULTS);
        signals.sent("+14165550123");
        signals.verifiedIn(signals.rangeOf("+14165550123").orElseThrow().prefix());
        assertThat(signals.readCountry("CA").figures()).isEqualTo(new SmsFigures(1, 1));
        assertThat(signals.readCountry("US").figures()).isEqualTo(new SmsFigures(0, 0));
        assertThat(signals.tallies().count("CA", SmsCountryTallies.Kind.SENT)).isEqualTo(1);
        assertThat(signals.tallies().count("CA", SmsCountryTallies.Kind.VERIFIED)).isEqualTo(1);
    }

    @Test
    void thePreviousReleasesCountryCountsAreNotJudged() {
        // The previous release counted every SMS of a country under SMS_COUNTRY_SENT and no verification: read
        // as the country's sends, they would open its breaker at the upgrade.
        SmsSignals signals = signals(store.counters(), SmsSignalPolicy.DEFAULTS);
        Instant window = dev.verificationservice.ratelimit.RateLimiter.windowStart(clock.instant(),
                SmsSignalPolicy.DEFAULTS.window());
        for (int n = 0; n < 2 * SmsSignalPolicy.CountryBreaker.DEFAULTS.minSends(); n++) {
            store.counters().takePlace(new Place(new dev.verificationservice.ratelimit.CounterWindow("smscountry:GB",
                    "SMS_COUNTRY_SENT", window, window.plus(java.time.Duration.ofHours(3))), Optional.empty()),
                    1_000_000);
        }
        assertThat(signals.check("+447700900123", false)).isInstanceOf(SmsSignals.Clear.class);
        assertThat(signals.readCountry("GB").figures()).isEqualTo(new SmsFigures(0, 0));
    }

    @Test
    void monitorOnlyReportsTheBreakerOnceAndRefusesNothing() {
        SmsSignals signals = signals(store.counters(), SmsSignalPolicy.DEFAULTS.withMonitorOnly(true));
        for (int n = 0; n < 50; n++) {
            signals.sent("+4477009001" + String.format("%02d", n));
        }
        SmsSignals.Verdict first = signals.check("+447700900199", false);
        assertThat(first).isInstanceOfSatisfying(SmsSignals.Monitored.class, seen -> assertThat(seen.opened()).isTrue());
        assertThat(first.refuses()).isFalse();
        assertThat(signals.check("+447700900198", false)).isInstanceOfSatisfying(SmsSignals.Monitored.class,
                seen -> assertThat(seen.opened()).isFalse());
        assertThat(signals.history(new SmsRange(44, "7700", "GB"))).singleElement()
                .extracting(AuditEntry::details).satisfies(details -> assertThat(details)
                        .containsEntry("mode", "monitor").containsEntry("sent", "50").containsEntry("verified", "0"));
    }

    @Test
    void aConvertingRangeStaysClearAtAnyVolume() {
        SmsSignals signals = signals(store.counters(), SmsSignalPolicy.DEFAULTS);
        for (int n = 0; n < 400; n++) {
            String number = "+4477009" + String.format("%05d", n);
            signals.sent(number);
            if (n % 3 != 0) {
                signals.verified(number);
            }
        }
        assertThat(signals.check("+447700999999", false)).isInstanceOf(SmsSignals.Clear.class);
    }

    @Test
    void aSignalThatCannotBeReadLetsTheSmsGoAndIsCounted() {
        SmsSignals signals = signals(new Unreadable(store.counters()), SmsSignalPolicy.DEFAULTS);
        assertThat(signals.check("+447700900123", false)).isEqualTo(
                new SmsSignals.Unavailable(Optional.of(new SmsRange(44, "7700", "GB"))));
        assertThat(signals.unavailableReads()).isEqualTo(1);
    }

    /** Counters whose reads fail, as a store fault does. */
    private record Unreadable(RateLimitRepository counters) implements RateLimitRepository {
        @Override
        public long takePlace(Place place, long ceiling) {
            return counters.takePlace(place, ceiling);
        }

        @Override
        public void givePlaceBack(Place place) {
            counters.givePlaceBack(place);
        }

        @Override
        public int deleteCounters(String userId, String action) {
            return counters.deleteCounters(userId, action);
        }

        @Override
        public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
            throw new StoreException("the store is unreachable");
        }

        @Override
        public List<RateLimitCounter> findCounters(String userId, String action, Instant from, Instant to,
                                                   Instant now) {
            throw new StoreException("the store is unreachable");
        }

        @Override
        public Optional<Instant> claimCooldown(Cooldown cooldown) {
            return counters.claimCooldown(cooldown);
        }

        @Override
        public void releaseCooldown(Cooldown cooldown) {
            counters.releaseCooldown(cooldown);
        }
    }
}

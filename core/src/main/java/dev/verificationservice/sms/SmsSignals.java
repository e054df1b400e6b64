package dev.verificationservice.sms;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * SMS pumping signals and the range and country breakers, on the rate-limit counters ({@link RateLimitRepository}):
 * bounded items, unmarked +1 takes, one fixed window each.
 *
 * <ul>
 *   <li>A send takes a place in its range's {@code SMS_RANGE_SENT} counter and in one shard of its country's
 *   {@code SMS_COUNTRY_SENDS} (picked by the number, so a country's writes spread over its shards): two write
 *   units, in one call of independent writes.</li>
 *   <li>A verification takes a place in its range's {@code SMS_RANGE_VERIFIED} and in a shard of its country's
 *   {@code SMS_COUNTRY_VERIFIED} (each in turn: the code keeps no number): two write units.</li>
 *   <li>The breaker of a range is its {@code SMS_BREAKER} counter in windows of the cool-off: open while the
 *   current or the previous cool-off window holds a count. A country's is the same counter under its
 *   {@code smscountry:<region>} subject.</li>
 *   <li>An operator's allow of a range is its {@code SMS_RANGE_ALLOWED} counter, one window for ever: while it holds
 *   a count the breaker neither opens nor refuses. It is read with the others, so it adds no round trip.</li>
 *   <li>What operators list ({@link #overview}, {@link #openCountries}) is the registry ({@link SmsRangeRepository}),
 *   written only on rare moments: a range's or a country's breaker opening, a range's sends reaching
 *   {@link #watchFigure} in a window (the send whose place is that figure, so once a range and window), an
 *   allow.</li>
 * </ul>
 * Reading a range ({@link #read}) is four queries that need no answer of each other, so they go to the store
 * together (one round trip on DynamoDB): beside admission's first step, they add none to a send. A range is judged
 * on its current window and the one before it, a sliding view of one to two windows. A country is judged the same
 * way on the sum of its shards, read by each instance at most once per {@link SmsSignalPolicy.CountryBreaker#refresh}
 * with a send's range reads (one query per shard and figure, and the breaker's) and remembered in between, so that a
 * busy country costs no query per send; only an open range breaker is judged before the country's.
 */
public final class SmsSignals {

    static final String SENT = "SMS_RANGE_SENT";
    static final String VERIFIED = "SMS_RANGE_VERIFIED";
    /** A country's sends (the previous release's {@code SMS_COUNTRY_SENT}, never judged, expires unread). */
    static final String COUNTRY_SENDS = "SMS_COUNTRY_SENDS";
    static final String COUNTRY_VERIFIED = "SMS_COUNTRY_VERIFIED";
    static final String BREAKER = "SMS_BREAKER";
    static final String ALLOWED = "SMS_RANGE_ALLOWED";
    /** The queries of a range's own figures, breaker and allow, first among {@link #reads}. */
    public static final int RANGE_READS = 4;
    /** The one window of an allowed range's counter and mark. */
    private static final Instant ALLOWED_WINDOW = Instant.EPOCH;
    /** An allow lasts until an operator removes it: its counter's ttl is past any service's life. */
    private static final Instant FOREVER = Instant.parse("9999-01-01T00:00:00Z");
    /** The most breaker marks {@link #overview} reads of one cool-off window: each listed range is read again. */
    public static final int BREAKERS_READ = 100;
    /** The most watch marks {@link #overview} reads of one window. */
    public static final int WATCHED_READ = 25;
    /** The most ranges {@link Overview#worst} holds. */
    public static final int WORST_RANGES = 20;
    /** The action a refusal by a range's breaker is audited under. */
    public static final String BREAKER_ACTION = BREAKER;

    /** A ceiling no signal reaches: the signals count, they never refuse by their count. */
    private static final long UNBOUNDED = 1_000_000_000L;

    private final RateLimitRepository counters;
    private final Clock clock;
    private final UnitOfWork units;
    private final SmsSignalPolicy policy;
    private final NumberRanges ranges;
    private final AtomicLong unavailable = new AtomicLong();
    /** What this instance last read of each country (ISO regions only, so a bounded map). */
    private final Map<String, CountryState> countries = new ConcurrentHashMap<>();
    /** When this instance reads each country's figures next. */
    private final Map<String, Instant> countryRefresh = new ConcurrentHashMap<>();
    private final SmsCountryTallies tallies = new SmsCountryTallies();
    /** The shard of a country the next verification counts in: in turn, since the code keeps no number. */
    private final AtomicInteger nextVerifiedShard = new AtomicInteger();

    private final AuditLog audit;
    private final SmsRangeRepository registry;

    /**
     * @param audit    where a breaker's opening and lifting are recorded, and go out as events
     * @param registry the operators' registry of ranges: open breakers, watched and allowed ranges
     */
    public SmsSignals(RateLimitRepository counters, AuditLog audit, Clock clock, UnitOfWork units,
                      SmsSignalPolicy policy, SmsRangeRepository registry) {
        this.registry = registry;
        this.counters = counters;
        this.audit = audit;
        this.clock = clock;
        this.units = units;
        this.policy = policy;
        this.ranges = policy.ranges();
    }

    public SmsSignalPolicy policy() {
        return policy;
    }

    /** Whether the send path consults the signals at all ({@link SmsSignalPolicy#enabled}). */
    public boolean enabled() {
        return policy.enabled();
    }

    public Optional<SmsRange> rangeOf(String e164) {
        return ranges.rangeOf(e164);
    }

    /** Which breaker a verdict speaks of: the number's range's, or its country's. */
    public enum Scope {
        RANGE, COUNTRY;

        /** As audit details and problem documents write it: {@code range}, {@code country}. */
        public String detail() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What the signals say about one SMS about to go out. */
    public sealed interface Verdict permits Clear, Blocked, Monitored, Bypassed, Unavailable {

        /** Whether the SMS must not go. */
        default boolean refuses() {
            return this instanceof Blocked;
        }
    }

    /** The range is in good standing. */
    public record Clear(SmsRange range, SmsFigures figures) implements Verdict {
    }

    /**
     * The breaker of the range, or of its country ({@code scope}), is open until {@code until}: the SMS is refused.
     * {@code figures} are that breaker's. {@code opened} when this very check opened it (the one that emits
     * {@code sms.range_blocked}).
     */
    public record Blocked(SmsRange range, SmsFigures figures, Instant until, boolean opened, Scope scope)
            implements Verdict {

        public Blocked(SmsRange range, SmsFigures figures, Instant until, boolean opened) {
            this(range, figures, until, opened, Scope.RANGE);
        }
    }

    /** As {@link Blocked}, in monitor-only mode: the SMS goes, the breaker is counted and reported. */
    public record Monitored(SmsRange range, SmsFigures figures, Instant until, boolean opened, Scope scope)
            implements Verdict {

        public Monitored(SmsRange range, SmsFigures figures, Instant until, boolean opened) {
            this(range, figures, until, opened, Scope.RANGE);
        }
    }

    /** The breaker is open, and the caller vouched for a human ({@code humanVerified}): the SMS goes, audited. */
    public record Bypassed(SmsRange range, SmsFigures figures, Instant until, Scope scope) implements Verdict {

        public Bypassed(SmsRange range, SmsFigures figures, Instant until) {
            this(range, figures, until, Scope.RANGE);
        }
    }

    /** The signals could not be read (a store fault): the SMS goes, counted in {@link #unavailableReads}. */
    public record Unavailable(Optional<SmsRange> range) implements Verdict {
    }

    /**
     * A range's figures and its breaker, as one read found them; {@code allowed} by an operator; {@code country}:
     * its country's, when the read was one of the instance's reads of the country
     * ({@link SmsSignalPolicy.CountryBreaker#refresh}).
     */
    public record RangeState(SmsRange range, SmsFigures figures, Optional<Instant> openUntil, boolean allowed,
                             Optional<CountryState> country) {

        public RangeState(SmsRange range, SmsFigures figures, Optional<Instant> openUntil, boolean allowed) {
            this(range, figures, openUntil, allowed, Optional.empty());
        }

        public RangeState(SmsRange range, SmsFigures figures, Optional<Instant> openUntil) {
            this(range, figures, openUntil, false);
        }
    }

    /** A country's figures (summed over its shards) and its breaker, as one read found them. */
    public record CountryState(String country, SmsFigures figures, Optional<Instant> openUntil) {
    }

    /** How often the signals could not be read or written and an SMS went unjudged or uncounted (fail open). */
    public long unavailableReads() {
        return unavailable.get();
    }

    /** The figures, breaker and allow of a range: independent queries, handed to the store together. */
    public RangeState read(SmsRange range) {
        return state(range, units.together(reads(range)));
    }

    /**
     * The queries {@link #read} makes, none needing another's answer: for a caller that hands them to the store
     * beside its own ({@link UnitOfWork#together}), then gives the answers, in order, to {@link #state}. Four for
     * the range ({@link #RANGE_READS}); when this instance's view of the range's country is due
     * ({@link SmsSignalPolicy.CountryBreaker#refresh}), the first such call also gets the country's.
     */
    public List<Supplier<List<RateLimitCounter>>> reads(SmsRange range) {
        Instant now = clock.instant();
        List<Supplier<List<RateLimitCounter>>> reads = new ArrayList<>(rangeReads(range, now));
        if (countryDue(range.country(), now)) {
            reads.addAll(countryReads(range.country(), now));
        }
        return reads;
    }

    /** The range's own {@link #RANGE_READS} queries: its sends, verifications, breaker and allow. */
    private List<Supplier<List<RateLimitCounter>>> rangeReads(SmsRange range, Instant now) {
        Instant window = RateLimiter.windowStart(now, policy.window());
        return List.of(
                () -> counters.findCounters(range.subject(), SENT, window.minus(policy.window()), window, now),
                () -> counters.findCounters(range.subject(), VERIFIED, window.minus(policy.window()), window, now),
                breakerRead(range.subject(), now),
                () -> counters.findCounters(range.subject(), ALLOWED, ALLOWED_WINDOW, ALLOWED_WINDOW, now));
    }

    /** What the answers to {@link #reads}, in their order, say of the range (and of its country, when read). */
    public RangeState state(SmsRange range, List<List<RateLimitCounter>> found) {
        Optional<CountryState> country = found.size() > RANGE_READS
                ? Optional.of(remember(countryState(range.country(), found.subList(RANGE_READS, found.size()))))
                : Optional.empty();
        boolean allowed = found.size() > 3 && sum(found.get(3)) > 0;
        return new RangeState(range, new SmsFigures(sum(found.get(0)), sum(found.get(1))), openUntil(found.get(2)),
                allowed, country);
    }

    /** The figures and breaker of a country, summed over its shards: read now, one query per shard and figure. */
    public CountryState readCountry(String country) {
        return remember(countryState(country, units.together(countryReads(country, clock.instant()))));
    }

    /** Whether this instance reads {@code country} now; the first caller once it is due takes the read. */
    private boolean countryDue(String country, Instant now) {
        boolean[] claimed = {false};
        countryRefresh.compute(country, (key, due) -> {
            if (due != null && now.isBefore(due)) {
                return due;
            }
            claimed[0] = true;
            return now.plus(policy.country().refresh());
        });
        return claimed[0];
    }

    /** The country's breaker, then each shard's sends and verifications, in that order. */
    private List<Supplier<List<RateLimitCounter>>> countryReads(String country, Instant now) {
        Instant window = RateLimiter.windowStart(now, policy.window());
        List<Supplier<List<RateLimitCounter>>> reads = new ArrayList<>();
        reads.add(breakerRead(SmsRange.countrySubjectOf(country, 0), now));
        for (int shard = 0; shard < policy.countryShards(); shard++) {
            String subject = SmsRange.countrySubjectOf(country, shard);
            reads.add(() -> counters.findCounters(subject, COUNTRY_SENDS, window.minus(policy.window()), window, now));
            reads.add(() -> counters.findCounters(subject, COUNTRY_VERIFIED, window.minus(policy.window()), window,
                    now));
        }
        return reads;
    }

    private CountryState countryState(String country, List<List<RateLimitCounter>> found) {
        long sent = 0;
        long verified = 0;
        for (int index = 1; index < found.size(); index += 2) {
            sent += sum(found.get(index));
            verified += sum(found.get(index + 1));
        }
        return new CountryState(country, new SmsFigures(sent, verified), openUntil(found.get(0)));
    }

    private CountryState remember(CountryState state) {
        countries.put(state.country(), state);
        return state;
    }

    private Supplier<List<RateLimitCounter>> breakerRead(String subject, Instant now) {
        Instant coolOff = RateLimiter.windowStart(now, policy.coolOff());
        return () -> counters.findCounters(subject, BREAKER, coolOff.minus(policy.coolOff()), coolOff, now);
    }

    private Optional<Instant> openUntil(List<RateLimitCounter> breaker) {
        return breaker.stream().filter(counter -> counter.count() > 0)
                .map(counter -> counter.windowStart().plus(policy.coolOff().multipliedBy(2)))
                .max(Instant::compareTo);
    }

    /**
     * Judges one SMS to {@code e164}: refused while its range's breaker is open, and the check that finds the
     * figures past the thresholds opens it. {@code humanVerified} (only from a caller permitted to say so) lets it
     * through an open breaker. A store fault reading the signals lets the SMS go (fail open).
     */
    public Verdict check(String e164, boolean humanVerified) {
        Optional<SmsRange> range = ranges.rangeOf(e164);
        if (range.isEmpty()) {
            return new Unavailable(range);
        }
        try {
            return judge(read(range.get()), humanVerified);
        } catch (StoreException fault) {
            return unavailable(range);
        }
    }

    /** The verdict when the signals of {@code range} could not be read or written: the SMS goes, counted. */
    public Unavailable unavailable(Optional<SmsRange> range) {
        unavailable.incrementAndGet();
        return new Unavailable(range);
    }

    /**
     * The verdict on what {@link #read} found: the range's breaker, then its country's (as this instance last read
     * it). A breaker whose figures trip it is opened (two writes: the breaker and the claim of its record): the
     * range's on any read, the country's on a read of the country.
     */
    public Verdict judge(RangeState state, boolean humanVerified) {
        Verdict verdict = judged(state, humanVerified);
        if (verdict.refuses()) {
            tallies.refused(state.range().country());
        }
        return verdict;
    }

    private Verdict judged(RangeState state, boolean humanVerified) {
        SmsRange range = state.range();
        Optional<Instant> until = state.openUntil();
        boolean opened = false;
        if (state.allowed()) {
            return new Clear(range, state.figures());
        }
        if (until.isEmpty() && policy.trips(state.figures())) {
            Instant end = openEnd();
            markOpening(SmsRangeMark.Kind.BREAKER, range.prefix(), range.country(), state.figures(), end);
            opened = open(range.subject(), details(range), state.figures(), end);
            until = Optional.of(end);
        }
        if (until.isPresent()) {
            return verdict(range, state.figures(), until.get(), opened, Scope.RANGE, humanVerified);
        }
        Instant now = clock.instant();
        CountryState country = state.country().orElseGet(() -> countries.get(range.country()));
        if (country == null) {
            return new Clear(range, state.figures());
        }
        Optional<Instant> countryUntil = country.openUntil().filter(now::isBefore);
        boolean countryOpened = false;
        if (countryUntil.isEmpty() && state.country().isPresent() && policy.country().trips(country.figures())) {
            Instant end = openEnd();
            markOpening(SmsRangeMark.Kind.COUNTRY_BREAKER, "", country.country(), country.figures(), end);
            countryOpened = open(SmsRange.countrySubjectOf(country.country(), 0), countryDetails(country.country()),
                    country.figures(), end);
            countryUntil = Optional.of(end);
            remember(new CountryState(country.country(), country.figures(), countryUntil));
        }
        return countryUntil.isEmpty() ? new Clear(range, state.figures())
                : verdict(range, country.figures(), countryUntil.get(), countryOpened, Scope.COUNTRY, humanVerified);
    }

    private Verdict verdict(SmsRange range, SmsFigures figures, Instant until, boolean opened, Scope scope,
                            boolean humanVerified) {
        if (humanVerified) {
            return new Bypassed(range, figures, until, scope);
        }
        return policy.monitorOnly() ? new Monitored(range, figures, until, opened, scope)
                : new Blocked(range, figures, until, opened, scope);
    }

    /**
     * Writes the registry's entry of a breaker opening until {@code end}, before the breaker: a breaker is never open
     * without the entry operators list it by. One write, run again by a retry or a simultaneous opening (the same
     * item), so once a range or country per cool-off window.
     */
    private void markOpening(SmsRangeMark.Kind kind, String prefix, String country, SmsFigures figures, Instant end) {
        registry.putMark(new SmsRangeMark(kind, end.minus(policy.coolOff().multipliedBy(2)), prefix, country,
                clock.instant(), figures, Optional.of(end), Optional.empty()));
    }

    /** The deletes of the entries of a breaker that may be open now: those of the current and previous cool-off. */
    private List<Supplier<Object>> unmarkOpenings(SmsRangeMark.Kind kind, String key) {
        Instant coolOff = RateLimiter.windowStart(clock.instant(), policy.coolOff());
        return List.of(() -> registry.deleteMark(kind, coolOff, key),
                () -> registry.deleteMark(kind, coolOff.minus(policy.coolOff()), key));
    }

    /** When a breaker opened now closes: the end of the next cool-off window. */
    private Instant openEnd() {
        return RateLimiter.windowStart(clock.instant(), policy.coolOff()).plus(policy.coolOff().multipliedBy(2));
    }

    /**
     * Opens the breaker of {@code subject} until {@code end} (unmarked, at most one place), then claims the record
     * of the opening ({@code sms.range_blocked}) under this check's own id, in the breaker's partition (a lift
     * deletes it with the breaker). The claim, not the place, says who records: a take sent again after its answer
     * was lost gets place 2 and still claims, and a claim sent again knows itself, so a lost answer neither loses
     * nor doubles the entry. Returns whether this check recorded the opening.
     */
    private boolean open(String subject, Map<String, String> details, SmsFigures figures, Instant end) {
        Instant now = clock.instant();
        Instant coolOff = end.minus(policy.coolOff().multipliedBy(2));
        counters.takePlace(new Place(new CounterWindow(subject, BREAKER, coolOff,
                end.plus(RateLimiter.COUNTER_GRACE)), Optional.empty()), 1);
        if (counters.claimCooldown(new Cooldown(subject, BREAKER, now, Duration.between(now, end),
                UUID.randomUUID().toString())).isPresent()) {
            return false;
        }
        details.put("sent", Long.toString(figures.sent()));
        details.put("verified", Long.toString(figures.verified()));
        details.put("until", Instants.iso(end));
        details.put("mode", policy.monitorOnly() ? "monitor" : "enforce");
        audit.recordSuccess(subject, AuditEventType.SMS_RANGE_BLOCKED, details, ClientContext.none());
        return true;
    }

    /** Counts an SMS handed to the channel: its range and its country's shard, two independent writes. */
    public void sent(String e164) {
        units.together(sentCounts(e164));
    }

    /**
     * The writes of {@link #sent}, for a caller that hands them to the store beside its own. Each fails open: a
     * store fault is counted in {@link #unavailableReads} and answers {@code false}, since the SMS is gone already.
     */
    public List<Supplier<Object>> sentCounts(String e164) {
        Optional<SmsRange> found = ranges.rangeOf(e164);
        if (found.isEmpty()) {
            return List.of();
        }
        SmsRange range = found.get();
        Instant now = clock.instant();
        int shard = Math.floorMod(e164.hashCode(), policy.countryShards());
        tallies.sent(range.country());
        return List.of(failingOpen(() -> watched(range, count(range.subject(), SENT, now), now)),
                failingOpen(() -> count(range.countrySubject(shard), COUNTRY_SENDS, now)));
    }

    /** The sends to a range in a window at which the registry watches it: half the breaker's minimum. */
    public int watchFigure() {
        return Math.max(1, policy.minSends() / 2);
    }

    /**
     * The send whose place in its range's window is {@link #watchFigure} writes the range's watch mark: once a range
     * and window (a retried count may skip the figure, and the range goes unwatched that window: the safe side).
     */
    private long watched(SmsRange range, long place, Instant now) {
        if (place == watchFigure()) {
            Instant window = RateLimiter.windowStart(now, policy.window());
            registry.putMark(new SmsRangeMark(SmsRangeMark.Kind.WATCH, window, range.prefix(), range.country(), now,
                    new SmsFigures(place, 0), Optional.of(window.plus(policy.window().multipliedBy(2))),
                    Optional.empty()));
        }
        return place;
    }

    /** Counts a verified code sent by SMS to {@code e164}: its range and a shard of its country. */
    public void verified(String e164) {
        ranges.rangeOf(e164).ifPresent(range -> verifiedIn(range.prefix()));
    }

    /**
     * Counts a verified code sent by SMS to the range {@code prefix} ({@link SmsRange#prefix}, as the code kept it):
     * two independent writes, the range's and a shard of its country's (the region its prefix lies in, as at the
     * send). Each fails open like {@link #sentCounts}: a verification never fails for its signal.
     */
    public void verifiedIn(String prefix) {
        Instant now = clock.instant();
        List<Supplier<Object>> writes = new ArrayList<>();
        writes.add(failingOpen(() -> count(SmsRange.subjectOf(prefix), VERIFIED, now)));
        NumberRanges.rangeOfPrefix(prefix).ifPresent(range -> {
            tallies.verified(range.country());
            int shard = Math.floorMod(nextVerifiedShard.getAndIncrement(), policy.countryShards());
            writes.add(failingOpen(() -> count(range.countrySubject(shard), COUNTRY_VERIFIED, now)));
        });
        units.together(writes);
    }

    private Supplier<Object> failingOpen(Supplier<Long> write) {
        return () -> {
            try {
                write.get();
                return true;
            } catch (StoreException fault) {
                unavailable.incrementAndGet();
                return false;
            }
        };
    }

    /**
     * An operator lifts a range's breaker: its breaker and its figures are forgotten, so the next check starts the
     * range afresh. Returns whether the breaker was open. Running it twice deletes nothing more.
     */
    public boolean lift(SmsRange range, String operatorKeyId, ClientContext client) {
        boolean wasOpen = read(range).openUntil().isPresent();
        List<Supplier<Object>> deletes = new ArrayList<>(List.of(
                () -> counters.deleteCounters(range.subject(), BREAKER),
                () -> counters.deleteCounters(range.subject(), SENT),
                () -> counters.deleteCounters(range.subject(), VERIFIED)));
        deletes.addAll(unmarkOpenings(SmsRangeMark.Kind.BREAKER, range.prefix()));
        units.together(deletes);
        if (wasOpen) {
            Map<String, String> details = details(range);
            details.put("operatorKeyId", operatorKeyId);
            audit.recordSuccess(range.subject(), AuditEventType.SMS_RANGE_RELEASED, details, client);
        }
        return wasOpen;
    }

    /**
     * An operator lifts a country's breaker: its breaker, its list entry and its figures on every shard are
     * forgotten, and this instance's view of it; another instance stops refusing at its next read of the country
     * ({@link SmsSignalPolicy.CountryBreaker#refresh}). Returns whether it was open; running it twice deletes
     * nothing more.
     */
    public boolean liftCountry(String country, String operatorKeyId, ClientContext client) {
        boolean wasOpen = readCountry(country).openUntil().isPresent();
        List<Supplier<Object>> deletes = new ArrayList<>(unmarkOpenings(SmsRangeMark.Kind.COUNTRY_BREAKER, country));
        deletes.add(() -> counters.deleteCounters(SmsRange.countrySubjectOf(country, 0), BREAKER));
        for (int shard = 0; shard < policy.countryShards(); shard++) {
            String subject = SmsRange.countrySubjectOf(country, shard);
            deletes.add(() -> counters.deleteCounters(subject, COUNTRY_SENDS));
            deletes.add(() -> counters.deleteCounters(subject, COUNTRY_VERIFIED));
        }
        units.together(deletes);
        countries.remove(country);
        countryRefresh.remove(country);
        if (wasOpen) {
            Map<String, String> details = countryDetails(country);
            details.put("operatorKeyId", operatorKeyId);
            audit.recordSuccess(SmsRange.countrySubjectOf(country, 0), AuditEventType.SMS_RANGE_RELEASED, details,
                    client);
        }
        return wasOpen;
    }

    /** The audit entries of a country's breaker: under {@code smscountry:<region>}. */
    public List<AuditEntry> countryHistory(String country) {
        return audit.query(SmsRange.countrySubjectOf(country, 0), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty()).entries();
    }

    /** This instance's count of SMS sent, refused by a breaker and verified, per country (for the metrics). */
    public SmsCountryTallies tallies() {
        return tallies;
    }

    /**
     * An operator allows a range: its breaker never refuses it (nor opens) until the allow is removed. Audited
     * {@code SMS_RANGE_ALLOWED} with the operator's key id; returns whether it was not allowed yet. The mark that
     * lists it, the audit entry, then the counter the send reads: a retry after a lost answer finishes the rest.
     */
    public boolean allow(SmsRange range, String operatorKeyId, ClientContext client) {
        if (read(range).allowed()) {
            return false;
        }
        registry.putMark(new SmsRangeMark(SmsRangeMark.Kind.ALLOWED, ALLOWED_WINDOW, range.prefix(), range.country(),
                clock.instant(), new SmsFigures(0, 0), Optional.empty(), Optional.of(operatorKeyId)));
        Map<String, String> details = details(range);
        details.put("operatorKeyId", operatorKeyId);
        audit.recordSuccess(range.subject(), AuditEventType.SMS_RANGE_ALLOWED, details, client);
        counters.takePlace(new Place(new CounterWindow(range.subject(), ALLOWED, ALLOWED_WINDOW, FOREVER),
                Optional.empty()), 1);
        return true;
    }

    /**
     * An operator removes a range's allow: its breaker judges it again. Audited {@code SMS_RANGE_DISALLOWED} when it
     * was allowed; returns whether it was. Run twice, it removes nothing more.
     */
    public boolean disallow(SmsRange range, String operatorKeyId, ClientContext client) {
        boolean wasAllowed = read(range).allowed();
        registry.deleteMark(SmsRangeMark.Kind.ALLOWED, ALLOWED_WINDOW, range.prefix());
        if (wasAllowed) {
            Map<String, String> details = details(range);
            details.put("operatorKeyId", operatorKeyId);
            audit.recordSuccess(range.subject(), AuditEventType.SMS_RANGE_DISALLOWED, details, client);
        }
        counters.deleteCounters(range.subject(), ALLOWED);
        return wasAllowed;
    }

    /**
     * What operators see of every range at once: the open breakers, the worst of the watched ranges (lowest
     * conversion first, then most sent) and the allowed ranges. Reads the registry's partitions (the current and
     * previous cool-off and counter windows, the allowed), at most {@value #BREAKERS_READ} breakers and
     * {@value #WATCHED_READ} watched ranges of each window, then each breaker's and watched range's state now, all handed to the store together.
     */
    public Overview overview() {
        Instant now = clock.instant();
        Instant coolOff = RateLimiter.windowStart(now, policy.coolOff());
        Instant window = RateLimiter.windowStart(now, policy.window());
        List<List<SmsRangeMark>> marks = units.together(List.<Supplier<List<SmsRangeMark>>>of(
                () -> registry.findMarks(SmsRangeMark.Kind.BREAKER, coolOff, now, BREAKERS_READ),
                () -> registry.findMarks(SmsRangeMark.Kind.BREAKER, coolOff.minus(policy.coolOff()), now,
                        BREAKERS_READ),
                () -> registry.findMarks(SmsRangeMark.Kind.WATCH, window, now, WATCHED_READ),
                () -> registry.findMarks(SmsRangeMark.Kind.WATCH, window.minus(policy.window()), now, WATCHED_READ),
                () -> registry.findMarks(SmsRangeMark.Kind.ALLOWED, ALLOWED_WINDOW, now, Integer.MAX_VALUE)));
        Map<String, SmsRange> breakers = rangesOf(marks.get(0), marks.get(1));
        Map<String, SmsRange> watched = rangesOf(marks.get(2), marks.get(3));
        Map<String, SmsRange> judged = new LinkedHashMap<>(breakers);
        judged.putAll(watched);
        List<Supplier<List<RateLimitCounter>>> reads = new ArrayList<>();
        judged.values().forEach(range -> reads.addAll(rangeReads(range, now)));
        List<List<RateLimitCounter>> found = units.together(reads);
        Map<String, RangeState> states = new LinkedHashMap<>();
        int perRange = RANGE_READS;
        int index = 0;
        for (SmsRange range : judged.values()) {
            states.put(range.prefix(), state(range, found.subList(index, index + perRange)));
            index += perRange;
        }
        List<RangeState> open = breakers.keySet().stream().map(states::get)
                .filter(state -> state.openUntil().isPresent())
                .sorted(Comparator.comparing((RangeState state) -> state.openUntil().get()).reversed()).toList();
        List<RangeState> worst = watched.keySet().stream().map(states::get)
                .sorted(Comparator.comparingDouble((RangeState state) -> state.figures().conversion())
                        .thenComparing(state -> -state.figures().sent()))
                .limit(WORST_RANGES).toList();
        return new Overview(open, worst, marks.get(4));
    }

    /** A country whose breaker is open: its figures and breaker now, and when the breaker opened. */
    public record OpenCountry(CountryState state, Instant openedAt) {
    }

    /**
     * The countries whose breaker is open, the latest to close first: the registry's country entries of the current
     * and previous cool-off windows (at most {@value #BREAKERS_READ} each), then each listed country's state now
     * ({@link #readCountry}'s queries), all handed to the store together. Operators call it; a send never does.
     */
    public List<OpenCountry> openCountries() {
        Instant now = clock.instant();
        Instant coolOff = RateLimiter.windowStart(now, policy.coolOff());
        List<List<SmsRangeMark>> marks = units.together(List.<Supplier<List<SmsRangeMark>>>of(
                () -> registry.findMarks(SmsRangeMark.Kind.COUNTRY_BREAKER, coolOff, now, BREAKERS_READ),
                () -> registry.findMarks(SmsRangeMark.Kind.COUNTRY_BREAKER, coolOff.minus(policy.coolOff()), now,
                        BREAKERS_READ)));
        Map<String, Instant> openedAt = new LinkedHashMap<>();
        marks.forEach(some -> some.forEach(mark -> openedAt.merge(mark.country(), mark.at(),
                (one, other) -> one.isAfter(other) ? one : other)));
        List<Supplier<List<RateLimitCounter>>> reads = new ArrayList<>();
        openedAt.keySet().forEach(country -> reads.addAll(countryReads(country, now)));
        List<List<RateLimitCounter>> found = units.together(reads);
        int perCountry = 1 + 2 * policy.countryShards();
        List<OpenCountry> open = new ArrayList<>();
        int index = 0;
        for (Map.Entry<String, Instant> entry : openedAt.entrySet()) {
            CountryState state = remember(countryState(entry.getKey(), found.subList(index, index + perCountry)));
            index += perCountry;
            if (state.openUntil().isPresent()) {
                open.add(new OpenCountry(state, entry.getValue()));
            }
        }
        open.sort(Comparator.comparing((OpenCountry country) -> country.state().openUntil().get()).reversed()
                .thenComparing(country -> country.state().country()));
        return open;
    }

    /** The ranges the marks name, by prefix, each once. */
    @SafeVarargs
    private static Map<String, SmsRange> rangesOf(List<SmsRangeMark>... marks) {
        Map<String, SmsRange> ranges = new LinkedHashMap<>();
        for (List<SmsRangeMark> some : marks) {
            for (SmsRangeMark mark : some) {
                NumberRanges.rangeOfPrefix(mark.prefix()).ifPresent(range -> ranges.putIfAbsent(mark.prefix(),
                        new SmsRange(range.callingCode(), range.nationalPrefix(), mark.country())));
            }
        }
        return ranges;
    }

    /**
     * The operators' view of every range ({@link #overview}): open breakers (latest to close first), the worst
     * watched ranges, the allowed ranges with who allowed them.
     */
    public record Overview(List<RangeState> openBreakers, List<RangeState> worst, List<SmsRangeMark> allowed) {
        public Overview {
            openBreakers = List.copyOf(openBreakers);
            worst = List.copyOf(worst);
            allowed = List.copyOf(allowed);
        }
    }

    /** The audit entries of a range: under its subject, since no user owns it. */
    public List<AuditEntry> history(SmsRange range) {
        return audit.query(range.subject(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty())
                .entries();
    }

    private static Map<String, String> details(SmsRange range) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("scope", Scope.RANGE.detail());
        details.put("range", range.prefix());
        details.put("country", range.country());
        return details;
    }

    private static Map<String, String> countryDetails(String country) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("scope", Scope.COUNTRY.detail());
        details.put("country", country);
        return details;
    }

    /** The sends to a country in the current window, summed over its shards (one query per shard). */
    public long countrySends(String country) {
        Instant now = clock.instant();
        Instant window = RateLimiter.windowStart(now, policy.window());
        SmsRange probe = new SmsRange(0, "", country);
        List<Supplier<List<RateLimitCounter>>> reads = new ArrayList<>();
        for (int shard = 0; shard < policy.countryShards(); shard++) {
            String subject = probe.countrySubject(shard);
            reads.add(() -> counters.findCounters(subject, COUNTRY_SENDS, window, window, now));
        }
        return units.together(reads).stream().mapToLong(SmsSignals::sum).sum();
    }

    private long count(String subject, String action, Instant now) {
        Instant window = RateLimiter.windowStart(now, policy.window());
        // Read over the next window too, so the counter lives until that one ends.
        return counters.takePlace(new Place(new CounterWindow(subject, action, window,
                window.plus(policy.window().multipliedBy(2)).plus(RateLimiter.COUNTER_GRACE)), Optional.empty()),
                UNBOUNDED);
    }

    private static long sum(List<RateLimitCounter> found) {
        return found.stream().mapToLong(RateLimitCounter::count).sum();
    }
}

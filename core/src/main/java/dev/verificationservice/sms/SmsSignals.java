package dev.verificationservice.sms;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * SMS pumping signals and the range breaker, on the rate-limit counters ({@link RateLimitRepository}): bounded
 * items, unmarked +1 takes, one fixed window each.
 *
 * <ul>
 *   <li>A send takes a place in its range's {@code SMS_RANGE_SENT} counter and in one shard of its country's
 *   {@code SMS_COUNTRY_SENT} (picked by the number, so a country's writes spread over its shards): two write
 *   units, in one call of independent writes.</li>
 *   <li>A verification takes a place in its range's {@code SMS_RANGE_VERIFIED}: one write unit.</li>
 *   <li>The breaker of a range is its {@code SMS_BREAKER} counter in windows of the cool-off: open while the
 *   current or the previous cool-off window holds a count.</li>
 *   <li>An operator's allow of a range is its {@code SMS_RANGE_ALLOWED} counter, one window for ever: while it holds
 *   a count the breaker neither opens nor refuses. It is read with the others, so it adds no round trip.</li>
 *   <li>What operators list ({@link #overview}) is the registry ({@link SmsRangeRepository}), written only on rare
 *   moments: a breaker's opening, a range's sends reaching {@link #watchFigure} in a window (the send whose place
 *   is that figure, so once a range and window), an allow.</li>
 * </ul>
 * Reading a range ({@link #read}) is four queries that need no answer of each other, so they go to the store
 * together (one round trip on DynamoDB): beside admission's first step, they add none to a send. A range is judged
 * on its current window and the one before it, a sliding view of one to two windows.
 */
public final class SmsSignals {

    static final String SENT = "SMS_RANGE_SENT";
    static final String VERIFIED = "SMS_RANGE_VERIFIED";
    static final String COUNTRY_SENT = "SMS_COUNTRY_SENT";
    static final String BREAKER = "SMS_BREAKER";
    static final String ALLOWED = "SMS_RANGE_ALLOWED";
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
     * The range's breaker is open until {@code until}: the SMS is refused. {@code opened} when this very check
     * opened it (the one that emits {@code sms.range_blocked}).
     */
    public record Blocked(SmsRange range, SmsFigures figures, Instant until, boolean opened) implements Verdict {
    }

    /** As {@link Blocked}, in monitor-only mode: the SMS goes, the breaker is counted and reported. */
    public record Monitored(SmsRange range, SmsFigures figures, Instant until, boolean opened) implements Verdict {
    }

    /** The breaker is open, and the caller vouched for a human ({@code humanVerified}): the SMS goes, audited. */
    public record Bypassed(SmsRange range, SmsFigures figures, Instant until) implements Verdict {
    }

    /** The signals could not be read (a store fault): the SMS goes, counted in {@link #unavailableReads}. */
    public record Unavailable(Optional<SmsRange> range) implements Verdict {
    }

    /** A range's figures and its breaker, as one read found them; {@code allowed} by an operator. */
    public record RangeState(SmsRange range, SmsFigures figures, Optional<Instant> openUntil, boolean allowed) {

        public RangeState(SmsRange range, SmsFigures figures, Optional<Instant> openUntil) {
            this(range, figures, openUntil, false);
        }
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
     * The four queries {@link #read} makes, none needing another's answer: for a caller that hands them to the
     * store beside its own ({@link UnitOfWork#together}), then gives the answers, in order, to {@link #state}.
     */
    public List<Supplier<List<RateLimitCounter>>> reads(SmsRange range) {
        Instant now = clock.instant();
        Instant window = RateLimiter.windowStart(now, policy.window());
        Instant coolOff = RateLimiter.windowStart(now, policy.coolOff());
        return List.of(
                () -> counters.findCounters(range.subject(), SENT, window.minus(policy.window()), window, now),
                () -> counters.findCounters(range.subject(), VERIFIED, window.minus(policy.window()), window, now),
                () -> counters.findCounters(range.subject(), BREAKER, coolOff.minus(policy.coolOff()), coolOff, now),
                () -> counters.findCounters(range.subject(), ALLOWED, ALLOWED_WINDOW, ALLOWED_WINDOW, now));
    }

    /** What the answers to {@link #reads}, in their order, say of the range. */
    public RangeState state(SmsRange range, List<List<RateLimitCounter>> found) {
        Optional<Instant> openUntil = found.get(2).stream().filter(counter -> counter.count() > 0)
                .map(counter -> counter.windowStart().plus(policy.coolOff().multipliedBy(2)))
                .max(Instant::compareTo);
        boolean allowed = found.size() > 3 && sum(found.get(3)) > 0;
        return new RangeState(range, new SmsFigures(sum(found.get(0)), sum(found.get(1))), openUntil, allowed);
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

    /** The verdict on what {@link #read} found; opens the breaker (one write) when the figures trip it. */
    public Verdict judge(RangeState state, boolean humanVerified) {
        SmsRange range = state.range();
        Optional<Instant> until = state.openUntil();
        boolean opened = false;
        if (state.allowed()) {
            return new Clear(range, state.figures());
        }
        if (until.isEmpty() && policy.trips(state.figures())) {
            Instant now = clock.instant();
            Instant coolOff = RateLimiter.windowStart(now, policy.coolOff());
            Instant end = coolOff.plus(policy.coolOff().multipliedBy(2));
            // The registry's mark first: a breaker is never open without the mark operators list it by.
            registry.putMark(new SmsRangeMark(SmsRangeMark.Kind.BREAKER, coolOff, range.prefix(), range.country(), now,
                    state.figures(), Optional.of(end), Optional.empty()));
            // Unmarked, at most one place: the first check to open it gets place 1 and reports the opening.
            long place = counters.takePlace(new Place(new CounterWindow(range.subject(), BREAKER, coolOff,
                    end.plus(RateLimiter.COUNTER_GRACE)), Optional.empty()), 1);
            opened = place == 1;
            until = Optional.of(end);
            if (opened) {
                Map<String, String> details = details(range);
                details.put("sent", Long.toString(state.figures().sent()));
                details.put("verified", Long.toString(state.figures().verified()));
                details.put("until", Instants.iso(end));
                details.put("mode", policy.monitorOnly() ? "monitor" : "enforce");
                audit.recordSuccess(range.subject(), AuditEventType.SMS_RANGE_BLOCKED, details, ClientContext.none());
            }
        }
        if (until.isEmpty()) {
            return new Clear(range, state.figures());
        }
        if (humanVerified) {
            return new Bypassed(range, state.figures(), until.get());
        }
        return policy.monitorOnly() ? new Monitored(range, state.figures(), until.get(), opened)
                : new Blocked(range, state.figures(), until.get(), opened);
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
        return List.of(failingOpen(() -> watched(range, count(range.subject(), SENT, now), now)),
                failingOpen(() -> count(range.countrySubject(shard), COUNTRY_SENT, now)));
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

    /** Counts a verified code sent by SMS to {@code e164}: one write to its range. */
    public void verified(String e164) {
        ranges.rangeOf(e164).ifPresent(range -> verifiedIn(range.prefix()));
    }

    /**
     * Counts a verified code sent by SMS to the range {@code prefix} ({@link SmsRange#prefix}, as the code kept it):
     * one write. Fails open like {@link #sentCounts}: a verification never fails for its signal.
     */
    public void verifiedIn(String prefix) {
        failingOpen(() -> count(SmsRange.subjectOf(prefix), VERIFIED, clock.instant())).get();
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
        Instant coolOff = RateLimiter.windowStart(clock.instant(), policy.coolOff());
        units.together(List.<Supplier<Object>>of(
                () -> counters.deleteCounters(range.subject(), BREAKER),
                () -> counters.deleteCounters(range.subject(), SENT),
                () -> counters.deleteCounters(range.subject(), VERIFIED),
                () -> registry.deleteMark(SmsRangeMark.Kind.BREAKER, coolOff, range.prefix()),
                () -> registry.deleteMark(SmsRangeMark.Kind.BREAKER, coolOff.minus(policy.coolOff()), range.prefix())));
        if (wasOpen) {
            Map<String, String> details = details(range);
            details.put("operatorKeyId", operatorKeyId);
            audit.recordSuccess(range.subject(), AuditEventType.SMS_RANGE_RELEASED, details, client);
        }
        return wasOpen;
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
        judged.values().forEach(range -> reads.addAll(reads(range)));
        List<List<RateLimitCounter>> found = units.together(reads);
        Map<String, RangeState> states = new LinkedHashMap<>();
        int perRange = reads.isEmpty() ? 0 : reads.size() / judged.size();
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
        details.put("range", range.prefix());
        details.put("country", range.country());
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
            reads.add(() -> counters.findCounters(subject, COUNTRY_SENT, window, window, now));
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

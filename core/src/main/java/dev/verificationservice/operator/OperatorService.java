package dev.verificationservice.operator;

import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.AuditPage;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.LiveCode;
import dev.verificationservice.devices.DeviceService;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.ratelimit.UserLimit;
import dev.verificationservice.totp.TotpService;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * What support staff may do for a user ("why can't this user log in?"): see everything about the user at
 * once, read the timeline by event type and its activity over time, lift a lock-out, kill the user's codes,
 * revoke devices. Every change is audited in the user's history with the operator's key id (never the key).
 * The operator API and the web console both act only through this class.
 */
public final class OperatorService {

    /** How many of the newest audit entries the overview shows. */
    public static final int OVERVIEW_AUDIT_ENTRIES = 20;

    /**
     * Action names an operator may still send that are no longer counted, each with what took its place: a lift of
     * one is refused naming the replacement (its counters, never read any more, go with their ttl).
     */
    private static final Map<String, String> RETIRED_ACTIONS = Map.of(
            "VERIFY_TOTP_DAILY", TotpService.VERIFY_ACTION + CountedAttempts.CONSECUTIVE_SUFFIX);

    private final CodeService codes;
    private final DeviceService devices;
    private final AuditLog audit;
    private final RateLimiter rateLimiter;
    private final CountedAttempts attempts;

    private final SmsSignals smsSignals;

    public OperatorService(CodeService codes, DeviceService devices, AuditLog audit, RateLimiter rateLimiter,
                           CountedAttempts attempts, SmsSignals smsSignals) {
        this.smsSignals = smsSignals;
        this.codes = codes;
        this.devices = devices;
        this.audit = audit;
        this.rateLimiter = rateLimiter;
        this.attempts = attempts;
    }

    /**
     * Every limit of a user that support sees and may lift: the code types' send limits, then each counted
     * factor's window and wrong answers in a row (every code type, authenticator apps, recovery codes).
     */
    private List<UserLimit> userLimits() {
        List<UserLimit> limits = new ArrayList<>(codes.sendLimits());
        limits.addAll(attempts.limits());
        return limits;
    }

    /** The user's rate-limit actions an operator may lift: those {@link #rateLimits} lists. */
    public Set<String> userActions() {
        Set<String> actions = new TreeSet<>();
        userLimits().forEach(limit -> actions.add(limit.action()));
        return actions;
    }

    /** The state of every limit of the user ({@link #userActions}), read in parallel (independent reads). */
    public List<RateLimitDecision> rateLimits(String userId) {
        Inputs.userId(userId);
        List<Supplier<RateLimitDecision>> reads = new ArrayList<>();
        userLimits().forEach(limit -> reads.add(() -> limit.stateOf(userId)));
        return rateLimiter.states(reads);
    }

    /** Devices, live codes, rate-limit state and the newest audit entries of one user. */
    public UserOverview overview(String userId) {
        Inputs.userId(userId);
        return new UserOverview(userId, devices.list(userId), codes.liveCodes(userId), rateLimits(userId),
                audit.query(userId, Optional.empty(), Optional.empty(), Optional.of(OVERVIEW_AUDIT_ENTRIES),
                        Optional.empty()).entries());
    }

    /**
     * Lifts a rate limit or lock-out: forgets every window of the action. Audited {@code RATE_LIMIT_RESET}
     * with the action, the operator's key id and how many windows held a count.
     */
    public int liftRateLimit(String userId, String action, String operatorKeyId, ClientContext client) {
        Inputs.userId(userId);
        if (action != null && RETIRED_ACTIONS.containsKey(action)) {
            throw new InvalidInputException("action", action + " is no longer counted; its place took "
                    + RETIRED_ACTIONS.get(action));
        }
        if (action == null || !userActions().contains(action)) {
            throw new InvalidInputException("action", "must be one of " + userActions());
        }
        int cleared = rateLimiter.reset(userId, action);
        attempts.lifted(userId);
        Map<String, String> details = new LinkedHashMap<>();
        details.put("action", action);
        details.put("operatorKeyId", operatorKeyId);
        details.put("windowsCleared", Integer.toString(cleared));
        audit.recordSuccess(userId, AuditEventType.RATE_LIMIT_RESET, details, client);
        return cleared;
    }

    /**
     * Lifts a number range's SMS breaker and forgets its figures, so SMS to it go again at once; audited
     * {@code SMS_RANGE_RELEASED} (an event) when it was open. Returns whether it was.
     */
    public boolean liftSmsBreaker(SmsRange range, String operatorKeyId, ClientContext client) {
        return smsSignals.lift(range, operatorKeyId, client);
    }

    /**
     * Lifts a country's SMS breaker and forgets its figures; audited {@code SMS_RANGE_RELEASED} (scope country, an
     * event) when it was open. Returns whether it was. Other instances follow at their next read of the country.
     */
    public boolean liftSmsCountryBreaker(String country, String operatorKeyId, ClientContext client) {
        return smsSignals.liftCountry(country, operatorKeyId, client);
    }

    /** The figures (summed over its shards) and breaker of a country, read now. */
    public SmsSignals.CountryState smsCountry(String country) {
        return smsSignals.readCountry(country);
    }

    /** The countries whose SMS breaker is open, with their figures now, the latest to close first. */
    public List<SmsSignals.OpenCountry> smsCountries() {
        return smsSignals.openCountries();
    }

    /** The openings and lifts of a country's SMS breaker. */
    public List<AuditEntry> smsCountryHistory(String country) {
        return smsSignals.countryHistory(country);
    }

    /** The figures and breaker of a number range, as the next SMS to it would be judged. */
    public SmsSignals.RangeState smsRange(SmsRange range) {
        return smsSignals.read(range);
    }

    /** The open breakers, the worst watched ranges and the allowed ranges, as the signals' registry lists them. */
    public SmsSignals.Overview smsRanges() {
        return smsSignals.overview();
    }

    /**
     * Allows a number range: its breaker never refuses an SMS to it until the allow is removed; audited
     * {@code SMS_RANGE_ALLOWED} (an event) with the operator's key id. Returns whether it was not allowed yet.
     */
    public boolean allowSmsRange(SmsRange range, String operatorKeyId, ClientContext client) {
        return smsSignals.allow(range, operatorKeyId, client);
    }

    /** Removes a number range's allow; audited {@code SMS_RANGE_DISALLOWED} when it was allowed. Whether it was. */
    public boolean disallowSmsRange(SmsRange range, String operatorKeyId, ClientContext client) {
        return smsSignals.disallow(range, operatorKeyId, client);
    }

    /** A number range's breaker openings and lifts, newest first. */
    public List<AuditEntry> smsRangeHistory(SmsRange range) {
        return smsSignals.history(range);
    }

    /** Deletes every code of the user, of every type; audited CODES_INVALIDATED with the operator's key id. */
    public int invalidateCodes(String userId, String operatorKeyId, ClientContext client) {
        return codes.invalidateAll(userId, "OPERATOR", Map.of("operatorKeyId", operatorKeyId), client);
    }

    /**
     * Forgets one device of the user; audited DEVICE_REVOKED with the operator's key id among its details.
     * Returns how many of its unexpired tokens were revoked.
     */
    public int revokeDevice(String userId, String deviceId, String operatorKeyId, ClientContext client) {
        return devices.revoke(userId, deviceId, Map.of("operatorKeyId", operatorKeyId), client);
    }

    /** Forgets every device of the user; audited DEVICES_REVOKED with the operator's key id among its details. */
    public int revokeAllDevices(String userId, String operatorKeyId, ClientContext client) {
        return devices.revokeAll(userId, Map.of("operatorKeyId", operatorKeyId), client);
    }

    /**
     * One page of the user's audit timeline in {@code [from, to]}, newest first, of the given event types (all
     * when empty), continued with the previous page's cursor. See {@link AuditLog#query(String, Optional,
     * Optional, Optional, Optional, Set)}.
     */
    public AuditPage timeline(String userId, Instant from, Instant to, Set<AuditEventType> types, int limit,
                              Optional<String> cursor) {
        return audit.query(userId, Optional.of(from), Optional.of(to), Optional.of(limit), cursor, types);
    }

    /** The most entries {@link #activity} reads; past them the activity says it is cut short. */
    public static final int MAX_ACTIVITY_ENTRIES = 5000;
    /** The most buckets one activity strip has. */
    public static final int MAX_ACTIVITY_BUCKETS = 200;

    /**
     * How many events of the given types (all when empty) the user had per {@code bucket} in {@code [from, to]},
     * successes and failures apart. Buckets are aligned to multiples of their length since the epoch (whole
     * hours, whole UTC days); the first holds {@code from}, the last {@code to}. At most
     * {@value #MAX_ACTIVITY_ENTRIES} entries are read, the newest; past them {@link Activity#truncated()} is true.
     */
    public Activity activity(String userId, Instant from, Instant to, Duration bucket, Set<AuditEventType> types) {
        Inputs.userId(userId);
        if (bucket.isNegative() || bucket.isZero() || from.isAfter(to)) {
            throw new InvalidInputException("from", "must not be after 'to'");
        }
        long size = bucket.toMillis();
        long first = Math.floorDiv(from.toEpochMilli(), size) * size;
        int count = (int) Math.min(Integer.MAX_VALUE, Math.floorDiv(to.toEpochMilli() - first, size) + 1);
        if (count > MAX_ACTIVITY_BUCKETS) {
            throw new InvalidInputException("from", "the range holds more than " + MAX_ACTIVITY_BUCKETS
                    + " periods of " + bucket + "; choose a shorter range or longer periods");
        }
        int[] successes = new int[count];
        int[] failures = new int[count];
        int read = 0;
        boolean truncated = false;
        Optional<String> cursor = Optional.empty();
        do {
            AuditPage page = audit.query(userId, Optional.of(from), Optional.of(to), Optional.of(AuditLog.MAX_PAGE_SIZE),
                    cursor, types);
            for (AuditEntry entry : page.entries()) {
                int index = (int) Math.floorDiv(entry.timestamp().toEpochMilli() - first, size);
                if (index >= 0 && index < count) {
                    if (entry.success()) {
                        successes[index]++;
                    } else {
                        failures[index]++;
                    }
                }
            }
            read += page.entries().size();
            cursor = page.nextCursor();
            if (read >= MAX_ACTIVITY_ENTRIES && cursor.isPresent()) {
                truncated = true;
                break;
            }
        } while (cursor.isPresent());
        List<ActivityBucket> buckets = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Instant start = Instant.ofEpochMilli(first + i * size);
            buckets.add(new ActivityBucket(start, start.plusMillis(size), successes[i], failures[i]));
        }
        return new Activity(from, to, bucket, buckets, truncated);
    }

    /** Events per period over a range; {@code truncated} when only the newest entries were read. */
    public record Activity(Instant from, Instant to, Duration bucket, List<ActivityBucket> buckets, boolean truncated) {
        public Activity {
            buckets = List.copyOf(buckets);
        }

        public int events() {
            return buckets.stream().mapToInt(ActivityBucket::events).sum();
        }

        public int failures() {
            return buckets.stream().mapToInt(ActivityBucket::failures).sum();
        }

        /** The largest number of events in one period (0 when there were none). */
        public int peak() {
            return buckets.stream().mapToInt(ActivityBucket::events).max().orElse(0);
        }
    }

    /** One period {@code [start, end)}: how many events succeeded and how many failed. */
    public record ActivityBucket(Instant start, Instant end, int successes, int failures) {
        public int events() {
            return successes + failures;
        }
    }

    /** The overview's parts, in the order support staff read them. */
    public record UserOverview(String userId, List<DeviceToken> devices, List<LiveCode> liveCodes,
                               List<RateLimitDecision> rateLimits, List<AuditEntry> latestAudit) {
    }
}

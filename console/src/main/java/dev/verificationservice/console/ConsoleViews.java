package dev.verificationservice.console;

import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsFigures;
import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.codes.DeliveryTargets;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.LiveCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.passkeys.PasskeySummary;
import dev.verificationservice.totp.FactorSummary;
import dev.verificationservice.validation.Inputs;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the console's pages show, already in words: times in UTC, time left, masked targets, one line of audit
 * details, and the geometry of the activity strip. The templates only place these values; Thymeleaf escapes
 * every one of them, and text a client sent shows its hidden format characters as escapes ({@code <U+202E>}).
 * Nothing here ever holds a code, a device secret or a key.
 */
public final class ConsoleViews {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter SHORT = DateTimeFormatter.ofPattern("MM-dd HH:mm").withZone(ZoneOffset.UTC);

    private ConsoleViews() {
    }

    /** {@code 2026-11-30 10:00:00} (the pages say UTC once, next to the times). */
    static String time(Instant instant) {
        return TIME.format(instant);
    }

    /** {@code 14 min 30 s}, {@code 2 h 5 min}, {@code 3 d 4 h}; {@code ended} when the instant has passed. */
    static String timeLeft(Instant now, Instant until) {
        Duration left = Duration.between(now, until);
        if (left.isNegative() || left.isZero()) {
            return "ended";
        }
        return duration(left);
    }

    static String duration(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return (seconds / 60) + " min" + (seconds % 60 == 0 ? "" : " " + (seconds % 60) + " s");
        }
        if (seconds < 86400) {
            return (seconds / 3600) + " h" + (seconds % 3600 / 60 == 0 ? "" : " " + (seconds % 3600 / 60) + " min");
        }
        return (seconds / 86400) + " d" + (seconds % 86400 / 3600 == 0 ? "" : " " + (seconds % 86400 / 3600) + " h");
    }

    public record CodeRow(String codeType, String format, String deliveryMethod, String maskedTarget, String expiresAt,
                   String timeLeft) {
        static CodeRow of(LiveCode code, Instant now) {
            return new CodeRow(code.codeType().name(), code.format().name(), code.deliveryMethod().name(),
                    code.maskedTarget(), ConsoleViews.time(code.expiresAt()), ConsoleViews.timeLeft(now, code.expiresAt()));
        }
    }

    /** One rate limit of the user; {@code locked} when the next event would be refused. */
    public record LimitRow(String action, long count, int limit, String windowStart, String resetsAt, String timeLeft,
                    boolean locked) {
        static LimitRow of(RateLimitDecision decision, Instant now) {
            return new LimitRow(decision.action(), decision.count(), decision.limit(), ConsoleViews.time(decision.windowStart()),
                    ConsoleViews.time(decision.resetsAt()), ConsoleViews.timeLeft(now, decision.resetsAt()), decision.limitReached());
        }

        /** Lifting does something only when something was counted. */
        public boolean liftable() {
            return count > 0;
        }

        /** A lock-out of verification (wrong guesses, in a window or in a row) or a send limit reached. */
        public String kind() {
            if (action.endsWith(CountedAttempts.CONSECUTIVE_SUFFIX)) {
                return "wrong guesses in a row";
            }
            return action.startsWith("VERIFY_") ? "wrong guesses" : "code requests";
        }

        /** Wrong guesses in a row end sooner than {@link #resetsAt}: at the user's next success of any factor. */
        public boolean inARow() {
            return action.endsWith(CountedAttempts.CONSECUTIVE_SUFFIX);
        }
    }

    public record DeviceRow(String deviceId, String deviceType, String deviceName, String lastActiveAt, String createdAt,
                     String expiresAt, String ipAddress) {
        static DeviceRow of(DeviceToken token) {
            return new DeviceRow(token.deviceId(), token.deviceType(),
                    token.deviceName().map(Inputs::visible).orElse("(no name)"),
                    time(token.lastActiveAt()), time(token.createdAt()), time(token.expiresAt()),
                    token.ipAddress().orElse("(not given)"));
        }
    }

    /** An authenticator factor: never its secret. A label is shown with invisible characters made visible. */
    public record FactorRow(String factorId, String label, boolean confirmed, String createdAt, String lastUsedAt) {
        static FactorRow of(FactorSummary factor) {
            return new FactorRow(factor.factorId(), Inputs.visible(factor.label()), factor.confirmed(),
                    time(factor.createdAt()), factor.lastUsedAt().map(ConsoleViews::time).orElse("never"));
        }
    }

    /** One passkey: what support staff need to recognise it with the user, no key material. */
    public record PasskeyRow(String credentialId, String label, String synced, String createdAt, String lastUsedAt) {
        static PasskeyRow of(PasskeySummary passkey) {
            return new PasskeyRow(passkey.credentialId(), Inputs.visible(passkey.label()),
                    passkey.backedUp() ? "synced" : "this device only", time(passkey.createdAt()),
                    passkey.lastUsedAt().map(ConsoleViews::time).orElse("never"));
        }
    }

    /** One audit entry as a timeline row; {@code details} is one line of sorted key=value pairs. */
    /** A number range's SMS figures and breaker, as the SMS page shows them. */
    public record RangeRow(String range, String country, long sent, long verified, String conversion,
                           String openUntil, boolean allowed) {
        static RangeRow of(SmsRange range, SmsSignals.RangeState state) {
            return new RangeRow(range.prefix(), range.country(), state.figures().sent(), state.figures().verified(),
                    percent(state.figures()), state.openUntil().map(until -> time(until) + " UTC").orElse(null),
                    state.allowed());
        }
    }

    /** A country's figures over its shards, and its breaker when open: since when (when listed) and until when. */
    public record CountryRow(String country, long sent, long verified, String conversion, String openedAt,
                             String openUntil) {
        static CountryRow of(SmsSignals.CountryState state) {
            return new CountryRow(state.country(), state.figures().sent(), state.figures().verified(),
                    percent(state.figures()), null,
                    state.openUntil().map(until -> time(until) + " UTC").orElse(null));
        }

        static CountryRow of(SmsSignals.OpenCountry open) {
            CountryRow row = of(open.state());
            return new CountryRow(row.country(), row.sent(), row.verified(), row.conversion(),
                    time(open.openedAt()) + " UTC", row.openUntil());
        }
    }

    private static String percent(SmsFigures figures) {
        return Math.round(figures.conversion() * 100) + " %";
    }

    /** A range an operator allowed: when, and with which key id. */
    public record AllowedRow(String range, String country, String allowedAt, String operatorKeyId) {
        static AllowedRow of(SmsRangeMark mark) {
            return new AllowedRow(mark.prefix(), mark.country(), time(mark.at()) + " UTC",
                    mark.operatorKeyId().orElse(""));
        }
    }

    public record EventRow(String time, String eventType, boolean success, String failureReason, String details,
                    String client) {
        static EventRow of(AuditEntry entry) {
            String details = new TreeMap<>(entry.details()).entrySet().stream()
                    .map(detail -> detail.getKey() + "=" + detail.getValue()).collect(Collectors.joining(", "));
            List<String> client = new ArrayList<>();
            entry.deviceId().ifPresent(device -> client.add("device " + device));
            entry.ipAddress().ifPresent(client::add);
            entry.userAgent().ifPresent(client::add);
            // Entries written before hidden format characters were refused may hold them: they show as escapes.
            return new EventRow(ConsoleViews.time(entry.timestamp()), entry.eventType().name(), entry.success(),
                    entry.failureReason().orElse(""), Inputs.visible(details), Inputs.visible(String.join(" · ", client)));
        }

        /** An operator's own action: its entry names the operator's key id. */
        public boolean byOperator() {
            return details.contains("operatorKeyId=");
        }
    }

    /**
     * An outbox message as the console shows it: the target masked as support staff see it everywhere else, and
     * the code blanked out of the message. An admin key never sees a live code (it does not open
     * {@code /dev/outbox} either); the developer reads codes at {@code GET /dev/outbox} with an application key.
     */
    public record OutboxRow(String sentAt, String channel, String maskedTo, String codeType, String body) {
        static OutboxRow of(DevelopmentOutbox.Message message) {
            String hidden = "•".repeat(Math.min(message.code().length(), 8));
            String body = message.code().isEmpty() ? message.body() : message.body().replace(message.code(), hidden);
            String to;
            try {
                to = DeliveryTargets.mask(message.channel(), message.to());
            } catch (RuntimeException e) {
                to = "(hidden)";
            }
            return new OutboxRow(time(message.sentAt()), message.channel().name(), to, message.codeType().name(), body);
        }
    }

    /** The activity strip: one bar per period, failures stacked on successes, in a 1000 × 100 box. */
    public record Strip(List<Bar> bars, String firstLabel, String middleLabel, String lastLabel, String summary,
                 String bucket, boolean truncated, int events, int failures) {
        static final int WIDTH = 1000;
        static final int HEIGHT = 100;

        static Strip of(OperatorService.Activity activity) {
            List<OperatorService.ActivityBucket> buckets = activity.buckets();
            int peak = Math.max(1, activity.peak());
            double slot = (double) WIDTH / buckets.size();
            double width = Math.max(1, slot * 0.8);
            List<Bar> bars = new ArrayList<>();
            OperatorService.ActivityBucket busiest = null;
            for (int i = 0; i < buckets.size(); i++) {
                OperatorService.ActivityBucket bucket = buckets.get(i);
                double successHeight = (HEIGHT - 4) * (double) bucket.successes() / peak;
                double failureHeight = (HEIGHT - 4) * (double) bucket.failures() / peak;
                double x = i * slot + (slot - width) / 2;
                String title = label(bucket.start(), activity.bucket()) + " to " + label(bucket.end(), activity.bucket())
                        + " UTC: " + bucket.events() + (bucket.events() == 1 ? " event" : " events")
                        + (bucket.failures() > 0 ? ", " + bucket.failures() + " failed" : "");
                bars.add(new Bar(number(x), number(width), number(HEIGHT - successHeight), number(successHeight),
                        number(HEIGHT - successHeight - failureHeight), number(failureHeight), title,
                        bucket.successes() > 0, bucket.failures() > 0));
                if (bucket.events() > 0 && (busiest == null || bucket.events() > busiest.events())) {
                    busiest = bucket;
                }
            }
            String summary = activity.events() + (activity.events() == 1 ? " event" : " events") + ", "
                    + activity.failures() + " failed"
                    + (busiest == null ? "" : "; busiest " + label(busiest.start(), activity.bucket()) + " UTC ("
                    + busiest.events() + ")");
            Instant first = buckets.get(0).start();
            Instant last = buckets.get(buckets.size() - 1).end();
            Instant middle = first.plus(Duration.between(first, last).dividedBy(2));
            return new Strip(bars, label(first, activity.bucket()), label(middle, activity.bucket()),
                    label(last, activity.bucket()), summary, "one bar per " + period(activity.bucket()),
                    activity.truncated(), activity.events(), activity.failures());
        }

        private static String period(Duration bucket) {
            if (bucket.equals(Duration.ofHours(1))) {
                return "hour";
            }
            if (bucket.equals(Duration.ofDays(1))) {
                return "day";
            }
            return bucket.toMinutes() + " minutes";
        }

        private static String label(Instant instant, Duration bucket) {
            return bucket.compareTo(Duration.ofDays(1)) >= 0 ? TIME.format(instant).substring(0, 10)
                    : SHORT.format(instant);
        }

        private static String number(double value) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
    }

    /** One bar: its success part at the bottom, its failure part above it. */
    public record Bar(String x, String width, String successY, String successHeight, String failureY, String failureHeight,
               String title, boolean hasSuccesses, boolean hasFailures) {
    }

    /** The periods a timeline can show, as the form offers them. */
    static final Map<String, String> PERIODS = periods();

    private static Map<String, String> periods() {
        Map<String, String> periods = new java.util.LinkedHashMap<>();
        periods.put("PT1H", "Last hour");
        periods.put("P1D", "Last 24 hours");
        periods.put("P7D", "Last 7 days");
        periods.put("P30D", "Last 30 days");
        periods.put("P90D", "Last 90 days");
        return periods;
    }
}

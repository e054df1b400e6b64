package dev.verificationservice.console;

import dev.verificationservice.audit.AuditEventType;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The user page's timeline filter as the operator's browser sent it (every value optional, as typed), bound from
 * the query string by Spring. {@link #resolve} turns it into the range and event types to read, or into the
 * message for each field the operator has to correct.
 *
 * @param type   an event type's name; blank: every type
 * @param period an ISO-8601 duration from {@link ConsoleViews#PERIODS}, ending at "to" (or now)
 * @param from   a UTC time or date the operator typed; overrides the period's start
 * @param to     a UTC time or date the operator typed; the range's end (now when blank)
 * @param cursor the position of an older page, from a link this page made
 */
public record TimelineQuery(String type, String period, String from, String to, String cursor) {

    /** Timeline entries per page. */
    static final int PAGE_SIZE = 25;
    /** The longest range the timeline and its activity strip cover at once. */
    static final Duration MAX_RANGE = Duration.ofDays(180);
    private static final String DEFAULT_PERIOD = "P1D";
    private static final Pattern TIME_INPUT = Pattern.compile(
            "(\\d{4}-\\d{2}-\\d{2})(?:[ T](\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?))?\\s*(?:Z|UTC)?", Pattern.CASE_INSENSITIVE);

    /** What {@link #resolve} made of the query. */
    public sealed interface Resolution permits Range, Refused {
        /** The filter as the operator gave it, to show it again in the form. */
        Filter filter();
    }

    /** A range to read: {@code [start, end)} of the given types (none: every type), from {@code position}. */
    public record Range(Filter filter, Set<AuditEventType> types, Instant start, Instant end,
                        Optional<String> position) implements Resolution {

        /** The activity strip's bars: short ranges in 5-minute bars, up to three days in hours, longer in days. */
        Duration bucket() {
            return bucketFor(Duration.between(start, end));
        }

        /** The first page again, with the operator's own inputs (a relative range moves on with the clock). */
        String newestUrl(String userId) {
            return url(userId, filter.type(), filter.period(), filter.from(), filter.to(), null);
        }

        /**
         * The next older page. Its link carries the resolved range, so every page of one listing reads the same
         * range.
         */
        String olderUrl(String userId, String next) {
            return url(userId, filter.type(), filter.period(), ConsoleViews.time(start.truncatedTo(ChronoUnit.SECONDS)),
                    ConsoleViews.time(ceilToSecond(end)), next);
        }
    }

    /** Fields the operator has to correct, each with its message. */
    public record Refused(Filter filter, Map<String, String> errors) implements Resolution {
    }

    /** The filter as the operator gave it (blank for what was not given), to show it again in the form. */
    public record Filter(String type, String period, String from, String to) {
    }

    /** The range and types to read at {@code now}, or the fields to correct. */
    public Resolution resolve(Instant now) {
        Map<String, String> errors = new LinkedHashMap<>();
        Set<AuditEventType> types = Set.of();
        if (type != null && !type.isBlank()) {
            try {
                types = Set.of(AuditEventType.valueOf(type.trim()));
            } catch (IllegalArgumentException e) {
                errors.put("type", "Choose an event type from the list.");
            }
        }
        String chosenPeriod = period == null || period.isBlank() ? DEFAULT_PERIOD : period;
        if (!ConsoleViews.PERIODS.containsKey(chosenPeriod)) {
            errors.put("period", "Choose a period from the list.");
            chosenPeriod = DEFAULT_PERIOD;
        }
        Optional<Instant> fromInput = parseTime("from", from, false, errors);
        Optional<Instant> toInput = parseTime("to", to, true, errors);
        Instant rangeEnd = toInput.orElse(now);
        Instant rangeStart = fromInput.orElse(rangeEnd.minus(Duration.parse(chosenPeriod)));
        if (errors.isEmpty() && !rangeStart.isBefore(rangeEnd)) {
            errors.put("from", "From must be before To.");
        }
        if (errors.isEmpty() && Duration.between(rangeStart, rangeEnd).compareTo(MAX_RANGE) > 0) {
            errors.put("from", "The range can be at most " + MAX_RANGE.toDays() + " days long.");
        }
        Filter filter = new Filter(type == null ? "" : type.trim(), chosenPeriod, from == null ? "" : from,
                to == null ? "" : to);
        if (!errors.isEmpty()) {
            return new Refused(filter, errors);
        }
        return new Range(filter, types, rangeStart, rangeEnd, Optional.ofNullable(cursor).filter(value -> !value.isBlank()));
    }

    /** Short ranges in 5-minute bars, up to three days in hours, longer ones in days. */
    static Duration bucketFor(Duration range) {
        if (range.compareTo(Duration.ofHours(2)) <= 0) {
            return Duration.ofMinutes(5);
        }
        return range.compareTo(Duration.ofDays(3)) <= 0 ? Duration.ofHours(1) : Duration.ofDays(1);
    }

    private static Instant ceilToSecond(Instant instant) {
        Instant whole = instant.truncatedTo(ChronoUnit.SECONDS);
        return whole.equals(instant) ? whole : whole.plusSeconds(1);
    }

    /**
     * A time the operator typed, in UTC: {@code 2026-11-30}, {@code 2026-11-30 10:00} or with seconds, a {@code T}
     * in place of the space and a {@code Z} at the end both allowed. A date alone means its start for "from" and
     * its end for "to".
     */
    static Optional<Instant> parseTime(String field, String value, boolean endOfDay, Map<String, String> errors) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        Matcher matcher = TIME_INPUT.matcher(value.trim());
        try {
            if (matcher.matches()) {
                LocalDate date = LocalDate.parse(matcher.group(1));
                if (matcher.group(2) == null) {
                    LocalDateTime start = date.atStartOfDay();
                    return Optional.of((endOfDay ? start.plusDays(1) : start).toInstant(ZoneOffset.UTC));
                }
                String time = matcher.group(2).length() == 5 ? matcher.group(2) + ":00" : matcher.group(2);
                Instant instant = LocalDateTime.parse(matcher.group(1) + "T" + time).toInstant(ZoneOffset.UTC);
                if (instant.isBefore(Instant.EPOCH) || instant.getEpochSecond() > 253402300799L) {
                    errors.put(field, "Give a time between 1970 and 9999.");
                    return Optional.empty();
                }
                return Optional.of(instant);
            }
        } catch (DateTimeParseException e) {
            // falls through to the message below
        }
        errors.put(field, "Write a UTC time such as 2026-11-30 09:30, or a date such as 2026-11-30.");
        return Optional.empty();
    }

    private static String url(String userId, String type, String period, String from, String to, String cursor) {
        UriComponentsBuilder url = UriComponentsBuilder.fromPath("/console/users/{userId}");
        if (type != null && !type.isBlank()) {
            url.queryParam("type", type.trim());
        }
        url.queryParam("period", period);
        if (from != null && !from.isBlank()) {
            url.queryParam("from", from);
        }
        if (to != null && !to.isBlank()) {
            url.queryParam("to", to);
        }
        if (cursor != null) {
            url.queryParam("cursor", cursor);
        }
        return url.buildAndExpand(userId).encode().toUriString() + "#timeline";
    }
}

package dev.verificationservice.server.errors;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The log of refused and failed requests, which no request rate can flood (a malformed request
 * without a key would otherwise write a stack trace each). Nothing is logged per request:
 * <ul>
 *   <li>a refusal (any 4xx) is counted, by status and area; the first one of an {@link #INTERVAL} is logged
 *   at once as a WARN line with what was counted since the last line, the others wait for the next line (which
 *   the first refusal after the interval writes). At most one line an interval, whatever the rate;</li>
 *   <li>an unexpected failure (a 500: a bug) is logged at ERROR with its stack trace, the first of an interval
 *   only; the others are counted and the next such line says how many there were.</li>
 * </ul>
 * Both run on the service's {@link Clock}. No line holds anything of the request but its status and area.
 */
@Component
public class RefusalLog {

    /** At most one line of each kind this often. */
    public static final Duration INTERVAL = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);

    private final Clock clock;
    private final Window refusals = new Window();
    private final Window failures = new Window();

    public RefusalLog(Clock clock) {
        this.clock = clock;
    }

    /** A request answered 4xx: {@code what} is its status and area, such as {@code "401 /v1"}. */
    public void refused(String what) {
        refusals.count(what, clock.instant()).ifPresent(line -> LOG.warn(
                "Refused requests since {}: {} (one summary line a minute at most; none is logged one by one)",
                line.since(), line.counts()));
    }

    /** A request that failed unexpectedly, answered 500. */
    public void failed(Throwable failure) {
        failures.count(failure.getClass().getSimpleName(), clock.instant()).ifPresent(line -> LOG.error(
                "Unexpected error, answered 500 (failures since {}: {}; one stack trace a minute at most)",
                line.since(), line.counts(), failure));
    }

    /** What a due line says: since when, and what was counted (this event included). */
    private record Line(Instant since, String counts) {
    }

    /** Counts since the last line, and when that line was written. */
    private static final class Window {
        private final Map<String, Long> counts = new TreeMap<>();
        private Instant lastLine;

        synchronized Optional<Line> count(String what, Instant now) {
            counts.merge(what, 1L, Long::sum);
            if (lastLine != null && now.isBefore(lastLine.plus(INTERVAL))) {
                return Optional.empty();
            }
            Line line = new Line(lastLine == null ? now : lastLine, counts.entrySet().stream()
                    .map(entry -> entry.getKey() + " x" + entry.getValue()).collect(Collectors.joining(", ")));
            counts.clear();
            lastLine = now;
            return Optional.of(line);
        }
    }
}

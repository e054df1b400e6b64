package dev.verificationservice.spring.logging;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * A log of refusals and failures that no request rate can flood (malformed requests without a key once wrote a
 * stack trace each, 20 MB of log a second; a flood of login-link requests wrote a line each). Nothing is logged
 * per event:
 * <ul>
 *   <li>a refusal is counted by its kind; the first one of an {@link #INTERVAL} is logged at once as a WARN line
 *   with what was counted since the last line, the others wait for the next line (which the first refusal after
 *   the interval writes). At most one line an interval, whatever the rate;</li>
 *   <li>an unexpected failure (a bug) is logged at ERROR with its stack trace, the first of an interval only; the
 *   others are counted and the next such line says how many there were.</li>
 * </ul>
 * Both run on the given {@link Clock}. A line holds the kinds its caller counted and nothing else, so a caller
 * counts fixed words, never text a client sent. The server counts its refused requests in one, the starter's login
 * link sender the links it did not send in another.
 */
public final class RefusalLog {

    /** At most one line of each kind this often. */
    public static final Duration INTERVAL = Duration.ofMinutes(1);

    private final Clock clock;
    private final Logger log;
    private final String refusedWhat;
    private final Window refusals = new Window();
    private final Window failures = new Window();

    /**
     * @param log         where the lines go: the logger of the part whose refusals they are
     * @param refusedWhat what a summary line begins with, such as {@code "Refused requests"}
     */
    public RefusalLog(Clock clock, Logger log, String refusedWhat) {
        this.clock = clock;
        this.log = log;
        this.refusedWhat = refusedWhat;
    }

    /** One refusal of the kind {@code what}, a fixed word such as {@code "401 /v1"}. */
    public void refused(String what) {
        refusals.count(what, clock.instant()).ifPresent(line -> log.warn(
                "{} since {}: {} (one summary line a minute at most; none is logged one by one)",
                refusedWhat, line.since(), line.counts()));
    }

    /** A failure nothing expected, such as a request answered 500. */
    public void failed(Throwable failure) {
        failures.count(failure.getClass().getSimpleName(), clock.instant()).ifPresent(line -> log.error(
                "Unexpected error (failures since {}: {}; one stack trace a minute at most)",
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

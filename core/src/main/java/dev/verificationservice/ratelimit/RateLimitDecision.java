package dev.verificationservice.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The answer of one atomic count: {@code count} is this event's place in its window.
 *
 * @param resetsAt the end of the window, when the count starts again from zero
 * @param place    the place this event took, when it was counted (to give it back); empty for a reading of
 *                 the current state, and for an event past the limit, which takes no place
 */
public record RateLimitDecision(String action, long count, int limit, Instant windowStart, Instant resetsAt,
                                Optional<Place> place) {

    /** A reading of a window's state, which counts nothing. */
    public RateLimitDecision(String action, long count, int limit, Instant windowStart, Instant resetsAt) {
        this(action, count, limit, windowStart, resetsAt, Optional.empty());
    }

    /** This event is within the limit: the first {@code limit} events of a window are. */
    public boolean allowed() {
        return count <= limit;
    }

    /** The window holds {@code limit} or more events: the next one would be refused. */
    public boolean limitReached() {
        return count >= limit;
    }

    /** Whole seconds until the window ends, at least 1: what a {@code Retry-After} header says. */
    public long retryAfterSeconds(Instant now) {
        long millis = Duration.between(now, resetsAt).toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }
}

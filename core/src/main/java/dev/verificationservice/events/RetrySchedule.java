package dev.verificationservice.events;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * When a failed delivery is tried again (as Standard Webhooks and Svix do): after about 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h, then it has failed. Eight attempts in about 27.5 hours.
 */
public final class RetrySchedule {

    public static final List<Duration> DELAYS = List.of(Duration.ofSeconds(5), Duration.ofMinutes(5),
            Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(5), Duration.ofHours(10),
            Duration.ofHours(10));
    /** An endpoint failing this long without one success is disabled. */
    public static final Duration DISABLE_AFTER = Duration.ofDays(3);
    /** How long an answer may take before the attempt counts as failed. */
    public static final Duration TIMEOUT = Duration.ofSeconds(15);

    private RetrySchedule() {
    }

    /** When to try again after {@code attemptsMade} attempts, the last failing at {@code failedAt}; empty: give up. */
    public static Optional<Instant> nextAttempt(int attemptsMade, Instant failedAt) {
        if (attemptsMade < 1 || attemptsMade > DELAYS.size()) {
            return Optional.empty();
        }
        return Optional.of(failedAt.plus(DELAYS.get(attemptsMade - 1)));
    }
}

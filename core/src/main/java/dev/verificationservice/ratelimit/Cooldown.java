package dev.verificationservice.ratelimit;

import java.time.Duration;
import java.time.Instant;

/**
 * A claim on a cooldown: the subject's action may happen at {@code now} only if its last claimed moment is at
 * least {@code length} ago. One item per subject and action holds the last claim; the claim is one
 * conditional write, so of simultaneous claims exactly one wins, and the attempt id makes a retried claim
 * recognise itself.
 */
public record Cooldown(String userId, String action, Instant now, Duration length, String attemptId) {

    /** When the claimed cooldown ends. */
    public Instant endsAt() {
        return now.plus(length);
    }
}

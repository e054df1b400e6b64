package dev.verificationservice.attempts;

import dev.verificationservice.ratelimit.RateLimitDecision;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The lock-outs this instance has seen the store refuse, so that a flood of guesses against a locked-out user is
 * answered without a store call: without it every refused guess writes a failed condition, a read and an audit
 * entry into the victim's partitions, and a few thousand a second throttle the victim's own requests.
 * <ul>
 *   <li>Only a lasting refusal is remembered: the store's refusal seen again at least {@link #CONFIRM} after the
 *   first (or again after a recheck). A refusal that only simultaneous attempts caused (their places are given
 *   back as they end) is gone by then, so it never turns into a remembered lock-out.</li>
 *   <li>A remembered lock-out answers for at most {@link #RECHECK}, and never past its end: a lift or a success on
 *   another instance is seen within that time; on this instance at once ({@link #forget}).</li>
 *   <li>Bounded: at {@link #CAPACITY} users it drops what has ended, and when nothing has it remembers nothing
 *   more: such a guess goes to the store, which decides as before.</li>
 * </ul>
 * An entry holds when refusals were read and what the store said; no secret.
 */
final class KnownLockOuts {

    /** How long after a first refusal a second one shows the lock-out lasts. */
    static final Duration CONFIRM = Duration.ofSeconds(1);
    /** How long a lasting refusal read from the store answers for this instance. */
    static final Duration RECHECK = Duration.ofSeconds(5);
    /** Users whose lock-outs are remembered at most; a few hundred bytes each, a few MB in all. */
    static final int CAPACITY = 10_000;

    /**
     * Refusals of one user's factor: the first seen, and once one lasted, until when memory answers
     * ({@code answersUntil}); {@code lasted} stays true after that ends, so the next refusal answers at once.
     */
    private record Seen(RateLimitDecision lockOut, Instant first, Instant answersUntil, boolean lasted) {

        boolean answersAt(Instant now) {
            return lasted && now.isBefore(answersUntil);
        }

        boolean staleAt(Instant now) {
            return !now.isBefore(lockOut.resetsAt()) || (!lasted && !now.isBefore(first.plus(RECHECK)));
        }
    }

    /** By user, then by action: a success forgets a user's entries in one step. */
    private final Map<String, Map<String, Seen>> known = new ConcurrentHashMap<>();
    private final LongAdder answered = new LongAdder();
    private final Clock clock;

    KnownLockOuts(Clock clock) {
        this.clock = clock;
    }

    /** The lock-out of the user's factor, when a lasting refusal was read less than {@link #RECHECK} ago. */
    Optional<RateLimitDecision> refusal(String userId, String action) {
        Map<String, Seen> ofUser = known.get(userId);
        Seen seen = ofUser == null ? null : ofUser.get(action);
        if (seen == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (!seen.answersAt(now)) {
            if (seen.staleAt(now)) {
                ofUser.remove(action, seen);
            }
            return Optional.empty();
        }
        answered.increment();
        return Optional.of(seen.lockOut());
    }

    /** The store refused an attempt of the user's factor with this lock-out. */
    void refused(String userId, String action, RateLimitDecision lockOut) {
        Instant now = clock.instant();
        if (!now.isBefore(lockOut.resetsAt())) {
            return;
        }
        Map<String, Seen> ofUser = known.get(userId);
        Seen before = ofUser == null ? null : ofUser.get(action);
        Seen next;
        if (before != null && !before.staleAt(now) && (before.lasted() || !now.isBefore(before.first().plus(CONFIRM)))) {
            Instant recheck = now.plus(RECHECK);
            next = new Seen(lockOut, before.first(), lockOut.resetsAt().isBefore(recheck) ? lockOut.resetsAt() : recheck,
                    true);
        } else if (before != null && !before.staleAt(now)) {
            return;
        } else {
            next = new Seen(lockOut, now, now, false);
        }
        if (ofUser == null && known.size() >= CAPACITY) {
            known.values().removeIf(entries -> {
                entries.values().removeIf(entry -> entry.staleAt(now));
                return entries.isEmpty();
            });
            if (known.size() >= CAPACITY) {
                return;
            }
        }
        known.computeIfAbsent(userId, ignored -> new ConcurrentHashMap<>()).put(action, next);
    }

    /** A lift of the user's limits here: every remembered lock-out of the user goes. */
    void forget(String userId) {
        known.remove(userId);
    }

    /**
     * A success of the user's here, which resets the counts in a row: the lock-outs they caused go. A window's
     * lock-out of another factor holds on, and so does its memory: forgetting it would let a flood at that factor
     * reach the store again, into the partitions the user's own requests use.
     */
    void forgetInARow(String userId) {
        Map<String, Seen> ofUser = known.get(userId);
        if (ofUser != null) {
            ofUser.values().removeIf(seen -> seen.lockOut().action().endsWith(CountedAttempts.CONSECUTIVE_SUFFIX));
        }
    }

    /** Attempts answered from memory since start. */
    long answered() {
        return answered.sum();
    }
}

package dev.verificationservice.attempts;

import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.UnitOfWork;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One factor under the rule of {@link CountedAttempts}: its window limit ({@link #action()}) and its count of wrong
 * answers in a row ({@link #consecutiveAction()}), per user.
 */
public final class CountedFactor {

    private final CountedAttempts attempts;
    private final String action;
    private final RateLimitPolicy limit;
    private final int lookBack;

    CountedFactor(CountedAttempts attempts, String action, RateLimitPolicy limit, int lookBack) {
        if (lookBack < 0) {
            throw new IllegalArgumentException("lookBack must be zero or more, not " + lookBack);
        }
        this.attempts = attempts;
        this.action = action;
        this.limit = limit;
        this.lookBack = lookBack;
    }

    /** The action of the window limit, such as {@code VERIFY_TOTP}. */
    public String action() {
        return action;
    }

    /** The action of the wrong answers in a row, such as {@code VERIFY_TOTP_CONSECUTIVE}. */
    public String consecutiveAction() {
        return action + CountedAttempts.CONSECUTIVE_SUFFIX;
    }

    public RateLimitPolicy limit() {
        return limit;
    }

    public int lookBack() {
        return lookBack;
    }

    /** The window limit's state for the user, counting nothing; {@code resetsAt} is when a lock-out of it ends. */
    public RateLimitDecision windowState(String userId) {
        return attempts.rateLimiter().currentOverWindows(userId, action, limit, lookBack);
    }

    /** The count of wrong answers in a row, counting nothing; {@code resetsAt} is when a lock-out of it ends. */
    public RateLimitDecision consecutiveState(String userId) {
        return attempts.rateLimiter().currentOverWindows(userId, consecutiveAction(), attempts.consecutiveLimit(),
                CountedAttempts.CONSECUTIVE_LOOK_BACK);
    }

    /**
     * The lasting lock-out of the user's factor the store refused moments before ({@link KnownLockOuts}), or empty:
     * then {@link #begin} asks the store. Asked before the attempt's unit of work, so a guess it refuses costs no
     * store call and no unit; the caller answers as for a refused attempt, untested and not audited (the store's
     * refusal was), and the refusal is counted ({@link CountedAttempts#refusedFromMemory}).
     */
    public Optional<RateLimitDecision> knownLockOut(String userId) {
        return attempts.lockOuts().refusal(userId, action);
    }

    /**
     * Starts an attempt of the user, before anything is tested: its place in the window, with the user's counts in a
     * row of every factor read beside it (independent calls, handed to the store together: a success resets them
     * without reading them again), and, when this factor's count holds something, its place there too. Refused when
     * either limit is reached; a refused attempt holds no place, and a lasting lock-out is remembered
     * ({@link #knownLockOut}).
     */
    public Admission begin(String userId) {
        RateLimiter rateLimiter = attempts.rateLimiter();
        List<Supplier<RateLimitDecision>> calls = new ArrayList<>();
        calls.add(() -> consecutiveState(userId));
        calls.add(() -> rateLimiter.acquireOverWindows(userId, action, limit, lookBack));
        attempts.othersThan(this).forEach(other -> calls.add(() -> other.consecutiveState(userId)));
        List<UnitOfWork.Settled<RateLimitDecision>> ended = rateLimiter.units().settle(calls);
        RateLimitDecision place = ended.get(1).get();
        if (!place.allowed()) {
            return refused(userId, place);
        }
        RateLimitDecision inARow = RateLimiter.undoneOnFailure(ended.get(0)::get, () -> rateLimiter.release(place));
        if (inARow.limitReached()) {
            rateLimiter.release(place);
            return refused(userId, inARow);
        }
        Optional<RateLimitDecision> consecutivePlace = Optional.empty();
        if (inARow.count() > 0) {
            RateLimitDecision taken = RateLimiter.undoneOnFailure(() -> takeConsecutive(userId),
                    () -> rateLimiter.release(place));
            if (!taken.allowed()) {
                rateLimiter.release(place);
                return refused(userId, taken);
            }
            consecutivePlace = Optional.of(taken);
        }
        return new Admission.Admitted(new Attempt(this, userId, place, inARow, consecutivePlace,
                othersInARow(ended.subList(2, ended.size()))));
    }

    /** The other factors' counts in a row as read; empty when a read failed: a success then reads them again. */
    private static Optional<List<RateLimitDecision>> othersInARow(List<UnitOfWork.Settled<RateLimitDecision>> read) {
        return read.stream().anyMatch(UnitOfWork.Settled::failed) ? Optional.empty()
                : Optional.of(read.stream().map(UnitOfWork.Settled::get).toList());
    }

    /** The store refused the attempt: remembered for the next ones, so they cost no store call while it holds. */
    private Admission refused(String userId, RateLimitDecision lockOut) {
        attempts.lockOuts().refused(userId, action, lockOut);
        return new Admission.Refused(lockOut);
    }

    /** A place in the count of wrong answers in a row. */
    RateLimitDecision takeConsecutive(String userId) {
        return attempts.rateLimiter().acquireOverWindows(userId, consecutiveAction(), attempts.consecutiveLimit(),
                CountedAttempts.CONSECUTIVE_LOOK_BACK);
    }

    CountedAttempts attempts() {
        return attempts;
    }

    @Override
    public String toString() {
        return "CountedFactor[" + action + ", " + limit.limit() + " per " + limit.window() + "]";
    }
}

package dev.verificationservice.attempts;

import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimiter;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One admitted attempt at a factor, holding its places until its outcome is known; exactly one of
 * {@link #wrongGuess}, {@link #noWrongGuess} and {@link #succeeded} says what it was.
 */
public final class Attempt {

    private final CountedFactor factor;
    private final String userId;
    private final RateLimitDecision place;
    private final RateLimitDecision inARow;
    private final Optional<RateLimitDecision> consecutivePlace;
    /** The other factors' counts in a row, read beside the place; empty when that read failed. */
    private final Optional<List<RateLimitDecision>> othersInARow;

    Attempt(CountedFactor factor, String userId, RateLimitDecision place, RateLimitDecision inARow,
            Optional<RateLimitDecision> consecutivePlace, Optional<List<RateLimitDecision>> othersInARow) {
        this.factor = factor;
        this.userId = userId;
        this.place = place;
        this.inARow = inARow;
        this.consecutivePlace = consecutivePlace;
        this.othersInARow = othersInARow;
    }

    /** The place in the window, for a store to give back in the same atomic write as a success. */
    public Optional<Place> place() {
        return place.place();
    }

    /**
     * Runs the test; when it fails (a server fault, such as a secret no key opens or a store that is down), every
     * place goes back before the failure goes up: a fault must not count against the user, let alone lock them out.
     */
    public <T> T tested(Supplier<T> test) {
        return RateLimiter.undoneOnFailure(test, this::noWrongGuess);
    }

    /** The outcome was no wrong guess (the user's own used code or replayed step, nothing to test): places back. */
    public void noWrongGuess() {
        RateLimiter rateLimiter = factor.attempts().rateLimiter();
        rateLimiter.release(place);
        consecutivePlace.ifPresent(rateLimiter::release);
    }

    /**
     * A wrong guess: it keeps its places, and counts in a row (now, if it took no place there before the test).
     * True when it reached a limit: it and every attempt after it answer TOO_MANY_ATTEMPTS until the lock-out ends.
     */
    public boolean wrongGuess() {
        RateLimitDecision consecutive = consecutivePlace.orElseGet(() -> factor.takeConsecutive(userId));
        return place.limitReached() || consecutive.limitReached();
    }

    /**
     * A success: the window place goes back (unless the store gave it back in the success's own write), and the
     * user's counts of wrong answers in a row, of every factor, are reset ({@link CountedAttempts#succeeded}).
     */
    public void succeeded(boolean placeGivenBack) {
        if (!placeGivenBack) {
            factor.attempts().rateLimiter().release(place);
        }
        factor.attempts().resetConsecutive(userId, Optional.of(factor),
                inARow.count() > 0 || consecutivePlace.isPresent(), othersInARow);
    }
}

package dev.verificationservice.ratelimit;

import java.util.Optional;

/**
 * The place one attempt takes in a counter window, named by the attempt's random id. The take writes no mark
 * of it (see {@link RateLimitRepository#takePlace}); the id names a give-back, so that a retried give-back is
 * recognised and a place goes back once.
 *
 * <p>The id is optional in the record only for places that can never be given back: the domain names every
 * place it takes.
 */
public record Place(CounterWindow window, Optional<String> attemptId) {

    /** How many give-back slots a counter has: what bounds its size whatever its count. */
    public static final int GIVE_BACK_SLOTS = 16;

    public Place(CounterWindow window, String attemptId) {
        this(window, Optional.of(attemptId));
    }

    /**
     * The give-back slot of an attempt: a function of its id alone ({@link String#hashCode} is fixed by the
     * language), so every instance and every retry picks the same one.
     */
    public static int giveBackSlot(String attemptId) {
        return Math.floorMod(attemptId.hashCode(), GIVE_BACK_SLOTS);
    }
}

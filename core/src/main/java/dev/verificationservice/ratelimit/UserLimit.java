package dev.verificationservice.ratelimit;

import java.util.Objects;
import java.util.function.Function;

/**
 * One limit counted per user, as support sees it and may lift it: its action, and how its state is read for a user
 * (counting nothing).
 */
public record UserLimit(String action, Function<String, RateLimitDecision> state) {

    public UserLimit {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(state, "state");
    }

    /** The state of this limit for the user. */
    public RateLimitDecision stateOf(String userId) {
        return state.apply(userId);
    }
}

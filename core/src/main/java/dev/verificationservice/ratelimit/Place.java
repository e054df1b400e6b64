package dev.verificationservice.ratelimit;

import java.util.Optional;

/**
 * The place one attempt takes in a counter window, named by the attempt's random id. The id is written
 * into the counter together with the count, so that a retried write of the same attempt (its answer was
 * lost and the client sent it again) is recognised and counted once, and a place is given back once.
 *
 * <p>An unnamed place ({@code attemptId} empty) is counted without a mark: for counters whose limit is too
 * large to keep a mark per place in one item (the global SMS budget). A retry may then count twice, which
 * only ever makes such a limit stricter.
 */
public record Place(CounterWindow window, Optional<String> attemptId) {

    public Place(CounterWindow window, String attemptId) {
        this(window, Optional.of(attemptId));
    }

    public static Place unnamed(CounterWindow window) {
        return new Place(window, Optional.empty());
    }
}

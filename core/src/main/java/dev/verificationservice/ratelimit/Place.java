package dev.verificationservice.ratelimit;

import java.util.Optional;

/**
 * The place one attempt takes in a counter window, named by the attempt's random id. The id is written
 * into the counter together with the count, so that a retried write of the same attempt (its answer was
 * lost and the client sent it again) is recognised and counted once, and a place is given back once.
 *
 * <p>The id is optional in the record only for stores that meet a place written without one: the domain names
 * every place it takes (the SMS budget's too, since it must be able to go back).
 */
public record Place(CounterWindow window, Optional<String> attemptId) {

    public Place(CounterWindow window, String attemptId) {
        this(window, Optional.of(attemptId));
    }
}

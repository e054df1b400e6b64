package dev.verificationservice.ratelimit;

/**
 * The place one attempt took in a counter window, named by the attempt's random id. The id is written
 * into the counter together with the count, so that a retried write of the same attempt (its answer was
 * lost and the client sent it again) is recognised and counted once, and a place is given back once.
 */
public record Place(CounterWindow window, String attemptId) {
}

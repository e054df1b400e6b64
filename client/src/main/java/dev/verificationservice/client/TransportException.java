package dev.verificationservice.client;

/**
 * No answer: the service could not be reached, the connection broke, the request timed out
 * ({@link #timedOut()}), or the calling thread was interrupted. For a write the outcome is unknown. Not
 * retried by the client.
 */
public class TransportException extends VerificationClientException {

    private final boolean timedOut;

    public TransportException(String message, Throwable cause, boolean timedOut) {
        super(message, cause);
        this.timedOut = timedOut;
    }

    /** Whether the connect or request timeout ran out. */
    public boolean timedOut() {
        return timedOut;
    }
}

package dev.verificationservice.client;

/**
 * Every failure of a call: a problem answer of the service ({@link ProblemException} and its subtypes), an
 * answer that is neither success nor problem ({@link UnexpectedResponseException}), or no answer at all
 * ({@link TransportException}). Expected outcomes (an invalid code, a rate-limited send) are results, not
 * exceptions.
 */
public class VerificationClientException extends RuntimeException {

    public VerificationClientException(String message) {
        super(message);
    }

    public VerificationClientException(String message, Throwable cause) {
        super(message, cause);
    }
}

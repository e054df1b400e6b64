package dev.verificationservice.client;

/**
 * An answer the client cannot read: a status that is neither success nor a problem document, or a success
 * whose body is not what the API promises (for example a proxy in between, or a wrong base URI).
 */
public class UnexpectedResponseException extends VerificationClientException {

    private final int status;
    private final String body;

    public UnexpectedResponseException(String message, int status, String body) {
        super(message + " (HTTP " + status + (body.isEmpty() ? "" : ": " + body) + ")");
        this.status = status;
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** The start of the answer's body, at most 200 characters. */
    public String body() {
        return body;
    }
}

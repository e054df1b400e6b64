package dev.verificationservice.codes;

/** A code could not be delivered. The message is safe to audit: it holds neither the code nor the full target. */
public class DeliveryException extends Exception {

    public DeliveryException(String message) {
        super(message);
    }

    public DeliveryException(String message, Throwable cause) {
        super(message, cause);
    }
}

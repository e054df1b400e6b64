package dev.verificationservice.spi;

/** The store failed or refused a write; the message says which item and why, never a secret. */
public class StoreException extends RuntimeException {

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

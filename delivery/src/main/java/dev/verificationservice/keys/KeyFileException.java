package dev.verificationservice.keys;

/**
 * A key file cannot be read or written; {@code action} tells the operator what to do. The starter reports it as
 * a refused start; an application without Spring shows both texts to its operator.
 */
public final class KeyFileException extends RuntimeException {

    private final String action;

    public KeyFileException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    public String action() {
        return action;
    }
}

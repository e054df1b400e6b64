package dev.verificationservice.spring;

/** The service cannot start as configured; {@code action} tells the operator what to change. */
public final class StartupException extends RuntimeException {

    private final String action;

    public StartupException(String description, String action) {
        super(description);
        this.action = action;
    }

    public StartupException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    public String action() {
        return action;
    }
}

package dev.verificationservice.delivery.email;

/**
 * {@link SmtpSettings} that would send in clear text where that is not safe; {@code action} says what to change.
 * The starter reports it as a refused start.
 */
public final class SmtpSettingsException extends IllegalArgumentException {

    private final String action;

    public SmtpSettingsException(String description, String action) {
        super(description);
        this.action = action;
    }

    public String action() {
        return action;
    }
}

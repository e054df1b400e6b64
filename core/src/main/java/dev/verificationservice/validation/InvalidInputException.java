package dev.verificationservice.validation;

/**
 * Input that the service refuses before it touches the store. It always names the field at fault, so
 * that an HTTP layer can answer 400 with that field and the caller knows exactly what to correct.
 */
public final class InvalidInputException extends IllegalArgumentException {

    private final String field;

    public InvalidInputException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** The name of the request field at fault, as the caller spelled it (for example {@code userId}). */
    public String field() {
        return field;
    }

    /** The message without the field prefix. */
    public String reason() {
        return getMessage().substring(field.length() + 2);
    }
}

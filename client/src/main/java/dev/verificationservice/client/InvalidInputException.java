package dev.verificationservice.client;

import java.util.Map;

/** 400 {@code INVALID_INPUT}: a value the service refused, before anything was written. */
public class InvalidInputException extends ProblemException {

    private final String field;

    public InvalidInputException(int status, String code, String title, String detail, Map<String, Object> properties,
                                 String field) {
        super(status, code, title, detail, properties);
        this.field = field;
    }

    /** The request field at fault, e.g. {@code userId}, {@code deliveryTarget}, {@code cursor}. */
    public String field() {
        return field;
    }
}

package dev.verificationservice.client;

import java.util.Map;
import java.util.Optional;

/**
 * The service answered with an RFC 9457 problem ({@code application/problem+json}). {@link #code()} is the
 * service's stable machine-readable code ({@code INVALID_INPUT}, {@code UNAUTHORIZED}, {@code NOT_FOUND},
 * {@code OUTBOX_DISABLED}, {@code STORE_UNAVAILABLE}, ...). The common ones have their own subtypes.
 */
public class ProblemException extends VerificationClientException {

    private final int status;
    private final String code;
    private final String title;
    private final String detail;
    private final Map<String, Object> properties;

    public ProblemException(int status, String code, String title, String detail, Map<String, Object> properties) {
        super("HTTP " + status + " " + code + ": " + detail);
        this.status = status;
        this.code = code;
        this.title = title;
        this.detail = detail;
        this.properties = Map.copyOf(properties);
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The service's stable code, e.g. {@code INVALID_INPUT}. */
    public String code() {
        return code;
    }

    public String title() {
        return title;
    }

    /** The service's explanation, for people and logs. */
    public String detail() {
        return detail;
    }

    /** The problem's other members (such as {@code field}), as JSON values: text, numbers, booleans. */
    public Map<String, Object> properties() {
        return properties;
    }

    /** One other member as text. */
    public Optional<String> property(String name) {
        return Optional.ofNullable(properties.get(name)).map(String::valueOf);
    }
}

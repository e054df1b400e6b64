package dev.verificationservice.server.errors;

import java.util.Map;
import org.springframework.http.HttpStatus;

/** An answer other than success, with a stable machine-readable {@code code} and extra members. */
public class ApiProblem extends RuntimeException {

    private final HttpStatus status;
    private final String code;
    private final Map<String, Object> properties;

    public ApiProblem(HttpStatus status, String code, String detail, Map<String, Object> properties) {
        super(detail);
        this.status = status;
        this.code = code;
        this.properties = Map.copyOf(properties);
    }

    public HttpStatus status() {
        return status;
    }

    public String code() {
        return code;
    }

    public Map<String, Object> properties() {
        return properties;
    }
}

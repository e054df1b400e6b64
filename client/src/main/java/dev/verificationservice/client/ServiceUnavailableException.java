package dev.verificationservice.client;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * 503: the service cannot answer now; try again after {@link #retryAfter()}. The client has already retried
 * where its {@link RetryPolicy} allows. An answer that is not a problem document (a proxy's page) has the code
 * {@code SERVICE_UNAVAILABLE}.
 */
public class ServiceUnavailableException extends ProblemException {

    private final Optional<Duration> retryAfter;

    public ServiceUnavailableException(int status, String code, String title, String detail,
                                       Map<String, Object> properties, Optional<Duration> retryAfter) {
        super(status, code, title, detail, properties);
        this.retryAfter = retryAfter;
    }

    /** The answer's {@code Retry-After}, when it had one. */
    public Optional<Duration> retryAfter() {
        return retryAfter;
    }
}

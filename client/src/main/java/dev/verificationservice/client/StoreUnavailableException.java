package dev.verificationservice.client;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * 503 {@code STORE_UNAVAILABLE}: the service's store (DynamoDB or the embedded database) did not complete the
 * request in time. The service recovers by itself; a read can be repeated after {@link #retryAfter()}. For a
 * write (send, verify, register ...) the outcome is unknown: see {@link RetryPolicy}.
 */
public class StoreUnavailableException extends ServiceUnavailableException {

    public StoreUnavailableException(int status, String code, String title, String detail,
                                     Map<String, Object> properties, Optional<Duration> retryAfter) {
        super(status, code, title, detail, properties, retryAfter);
    }
}

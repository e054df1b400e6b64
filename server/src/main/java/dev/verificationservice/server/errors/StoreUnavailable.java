package dev.verificationservice.server.errors;

import dev.verificationservice.spi.StoreException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The answer when the store cannot complete a request in time: 503 {@code STORE_UNAVAILABLE} with
 * {@code Retry-After}, the same whether a controller or a filter (the Idempotency-Key's) met the failure, so
 * a client retries either way.
 */
public final class StoreUnavailable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreUnavailable.class);
    private static final HttpStatus STATUS = HttpStatus.SERVICE_UNAVAILABLE;
    private static final String CODE = "STORE_UNAVAILABLE";
    private static final String RETRY_AFTER_SECONDS = "5";
    private static final String DETAIL =
            "The store could not complete the request in time. Retry after the time in Retry-After.";

    private StoreUnavailable() {
    }

    /** For an exception handler inside Spring MVC. */
    static ResponseEntity<ProblemDetail> answer(StoreException e) {
        log(e);
        return ResponseEntity.status(STATUS).header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(Problems.of(STATUS, CODE, DETAIL, Map.of()));
    }

    /** For a filter, which answers outside Spring MVC. */
    public static void write(HttpServletResponse response, StoreException e) throws IOException {
        log(e);
        response.setHeader(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        Problems.write(response, STATUS, CODE, DETAIL);
    }

    /**
     * One line per failed request: during an outage every request fails the same way, and a stack trace each
     * would bury the log. The cause's type is in the message; the trace is at DEBUG.
     */
    private static void log(StoreException e) {
        LOG.warn("Store unavailable, answered 503: {}", e.getMessage());
        LOG.debug("Store failure", e);
    }
}

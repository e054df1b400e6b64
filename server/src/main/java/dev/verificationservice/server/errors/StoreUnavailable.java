package dev.verificationservice.server.errors;

import dev.verificationservice.store.StoreException;
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
 * The answer when the store cannot complete a request: 503 {@code STORE_UNAVAILABLE} with {@code Retry-After} and
 * a detail that says what happened (timed out, throttled, busy, unreachable, an unexpected answer, failed), the
 * same whether a controller or a filter (the Idempotency-Key's) met the failure, so a client retries either way.
 */
public final class StoreUnavailable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreUnavailable.class);
    private static final HttpStatus STATUS = HttpStatus.SERVICE_UNAVAILABLE;
    private static final String CODE = "STORE_UNAVAILABLE";
    private static final String RETRY_AFTER_SECONDS = "5";

    private StoreUnavailable() {
    }

    /** For an exception handler inside Spring MVC. */
    static ResponseEntity<ProblemDetail> answer(StoreException e) {
        log(e);
        return ResponseEntity.status(STATUS).header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(Problems.of(STATUS, CODE, detail(e), Map.of()));
    }

    /** For a filter, which answers outside Spring MVC. */
    public static void write(HttpServletResponse response, StoreException e) throws IOException {
        log(e);
        response.setHeader(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        Problems.write(response, STATUS, CODE, detail(e));
    }

    /** What happened (the failure's kind, in words without internals) and what to do. */
    static String detail(StoreException e) {
        return e.kind().description() + " Retry after the time in Retry-After.";
    }

    /**
     * One line per failed request: during an outage every request fails the same way, and a stack trace each
     * would bury the log. The cause's type is in the message; the trace is at DEBUG.
     */
    private static void log(StoreException e) {
        if (e.kind() == StoreException.Kind.UNEXPECTED_ANSWER) {
            // Not an outage: the engine or the table is not what the service was built for. Named, at ERROR.
            LOG.error("The store answered in a way the service does not expect (is the engine DynamoDB-compatible "
                    + "with transactions, and the table as create-table makes it?); answered 503: {}", e.getMessage());
        } else {
            LOG.warn("Store unavailable ({}), answered 503: {}", e.kind(), e.getMessage());
        }
        LOG.debug("Store failure", e);
    }
}

package dev.verificationservice.store;

import java.util.Objects;

/**
 * The store failed or refused a write; the message says which item and why, never a secret. Its {@link Kind}
 * says what happened in words a caller may show (the server's 503 does): a store that did not answer in time is
 * not one that throttles, and neither is one that answered in a way the service does not expect.
 */
public class StoreException extends RuntimeException {

    /** What kind of failure it was; every kind is worth a retry later. */
    public enum Kind {
        /** No answer within the store's time limit (the call or attempt timeout, or the lock wait). */
        TIMED_OUT("The store did not answer in time."),
        /** The store refused requests over its capacity (DynamoDB throttling) after the retries the SDK makes. */
        THROTTLED("The store is throttling requests (over its capacity)."),
        /** Another writer held the store for longer than the lock wait (the embedded store). */
        BUSY("The store was busy with other writes for longer than the lock wait; nothing was written."),
        /** No connection could be made, or it broke (the store is down or unreachable). */
        UNREACHABLE("The store cannot be reached."),
        /** The store answered with an error the service does not expect of it: an engine that lacks an operation,
         * a table changed under the service, or a bug. The service's log names it. */
        UNEXPECTED_ANSWER("The store answered with an error the service does not expect; the service's log names it."),
        /** Any other failure of the store (a 500 of the service, a failed disk write, ...). */
        FAILED("The store failed to complete the request.");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        /** One sentence for a person: what happened, without internals. */
        public String description() {
            return description;
        }
    }

    private final Kind kind;

    public StoreException(String message) {
        this(Kind.FAILED, message, null);
    }

    public StoreException(String message, Throwable cause) {
        this(Kind.FAILED, message, cause);
    }

    public StoreException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }
}

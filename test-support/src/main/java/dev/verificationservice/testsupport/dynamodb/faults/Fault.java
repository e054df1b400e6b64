package dev.verificationservice.testsupport.dynamodb.faults;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * One rule for {@link DynamoDbFaultProxy#inject}: which requests it hits (an operation and optionally a
 * condition on the request body), what happens to them ({@link Action}), and how many times.
 *
 * <p>A fault is a value; build it with the factories and refine it with the {@code with...} methods, e.g.
 * {@code Fault.dropAnswer("UpdateItem").whenBodyContains("ADD #count").times(2)}. By default a fault hits the
 * next matching request only, because the question a test asks is nearly always "what if this one call
 * fails?", and a fault that never ends would make the SDK's retries fail too.
 *
 * @param operation the DynamoDB operation as in the {@code X-Amz-Target} header after the dot
 *                  ({@code UpdateItem}), or {@link #ANY_OPERATION}
 * @param body      a condition on the request body (the DynamoDB JSON text), or empty for every body
 * @param action    what the proxy does instead of a plain forward
 * @param times     how many matching requests it hits; {@link #ALWAYS} until it is removed
 */
public record Fault(String operation, Optional<BodyCondition> body, Action action, int times) {

    /** Matches every operation. */
    public static final String ANY_OPERATION = "*";
    /** For {@link #times}: hits every matching request until the fault is removed or the proxy cleared. */
    public static final int ALWAYS = Integer.MAX_VALUE;

    public Fault {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(action, "action");
        if (operation.isBlank()) {
            throw new IllegalArgumentException("operation is blank; name a DynamoDB operation such as UpdateItem, "
                    + "or use Fault.ANY_OPERATION");
        }
        if (operation.contains(".")) {
            throw new IllegalArgumentException("operation '" + operation + "' has a target prefix; use the name "
                    + "after the dot, e.g. '" + operation.substring(operation.lastIndexOf('.') + 1) + "'");
        }
        if (times < 1) {
            throw new IllegalArgumentException("times must be at least 1 (or Fault.ALWAYS), not " + times);
        }
    }

    /** A fault that hits the next request of the operation once. */
    public static Fault on(String operation, Action action) {
        return new Fault(operation, Optional.empty(), action, 1);
    }

    /** The engine applies the request, but its answer is lost: the SDK sees a dropped connection and retries. */
    public static Fault dropAnswer(String operation) {
        return on(operation, Action.DROP_ANSWER);
    }

    /** The connection is reset (TCP RST) before the request reaches the engine. */
    public static Fault reset(String operation) {
        return on(operation, Action.RESET);
    }

    /** The request reaches the engine late: after the delay, then it is forwarded and answered normally. */
    public static Fault delay(String operation, Duration delay) {
        return on(operation, new Action.Delay(delay));
    }

    /** A {@code ThrottlingException} answer (HTTP 400); the engine never sees the request. */
    public static Fault throttle(String operation) {
        return on(operation, Action.THROTTLE);
    }

    /** A throttling answer of the given kind (HTTP 400); the engine never sees the request. */
    public static Fault throttle(String operation, ThrottleError error) {
        return on(operation, new Action.Throttle(error));
    }

    /** An {@code InternalFailure} answer (HTTP 500); the engine never sees the request. */
    public static Fault serverError(String operation) {
        return on(operation, Action.SERVER_ERROR);
    }

    /**
     * An error answer (HTTP 400) that DynamoDB never gives a well-formed request on a table of the right shape,
     * e.g. {@code UnknownOperationException}, which an engine without the operation answers: what the store must
     * report as unexpected, not as a timeout.
     */
    public static Fault unexpectedError(String operation, String type, String message) {
        return on(operation, new Action.UnexpectedError(type, message));
    }

    /**
     * A {@code BatchWriteItem} that DynamoDB only partly processes, as it does under throttling: the first
     * {@code processed} write requests reach the engine, the others come back in {@code UnprocessedItems} (HTTP
     * 200), for the client to send again.
     */
    public static Fault leaveUnprocessed(int processed) {
        return on("BatchWriteItem", new Action.LeaveUnprocessed(processed));
    }

    /**
     * The engine answers, and the proxy changes its successful answer (the JSON object) before the client sees it:
     * for what a local engine never says, such as the {@code Replicas} and {@code MultiRegionConsistency} of a
     * global table in a {@code DescribeTable} answer. An error answer goes through as it is.
     */
    public static Fault rewriteAnswer(String operation, String description, UnaryOperator<Map<String, Object>> rewrite) {
        return on(operation, new Action.RewriteAnswer(description, rewrite));
    }

    /** Only requests whose body contains the text, e.g. {@code "ADD #count"} or a key value. */
    public Fault whenBodyContains(String text) {
        Objects.requireNonNull(text, "text");
        return whenBody("body contains \"" + text + "\"", body -> body.contains(text));
    }

    /** Only requests whose body text passes the predicate; the description names it in messages. */
    public Fault whenBody(String description, Predicate<String> predicate) {
        return new Fault(operation, Optional.of(new BodyCondition(description, predicate)), action, times);
    }

    /** Hits the next {@code count} matching requests. */
    public Fault times(int count) {
        return new Fault(operation, body, action, count);
    }

    /** Hits every matching request until removed. */
    public Fault always() {
        return times(ALWAYS);
    }

    /** Whether a request of this operation and body is one this fault hits (ignoring how often it already did). */
    public boolean matches(String requestOperation, String requestBody) {
        if (!ANY_OPERATION.equals(operation) && !operation.equals(requestOperation)) {
            return false;
        }
        if (body.isEmpty()) {
            return true;
        }
        try {
            return body.get().predicate().test(requestBody);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the body condition of " + this + " failed on a " + requestOperation
                    + " request", e);
        }
    }

    @Override
    public String toString() {
        return action + " on " + (ANY_OPERATION.equals(operation) ? "any operation" : operation)
                + body.map(condition -> " when " + condition.description()).orElse("")
                + (times == ALWAYS ? ", always" : times == 1 ? ", once" : ", " + times + " times");
    }

    /** A named condition on the request body text. */
    public record BodyCondition(String description, Predicate<String> predicate) {
        public BodyCondition {
            Objects.requireNonNull(description, "description");
            Objects.requireNonNull(predicate, "predicate");
        }
    }

    /** The two throttling errors DynamoDB answers with; the SDK treats both as throttling and backs off longer. */
    public enum ThrottleError {
        /** Request rate too high for the account or partition (on-demand tables). */
        THROTTLING("ThrottlingException", "Rate of requests exceeds the allowed throughput."),
        /** Provisioned capacity of a table or index exhausted. */
        PROVISIONED_THROUGHPUT_EXCEEDED("ProvisionedThroughputExceededException",
                "The level of configured provisioned throughput for the table was exceeded. "
                        + "Consider increasing your provisioning level with the UpdateTable API.");

        private final String code;
        private final String message;

        ThrottleError(String code, String message) {
            this.code = code;
            this.message = message;
        }

        /** The error code the SDK reports, {@code awsErrorDetails().errorCode()}. */
        public String code() {
            return code;
        }

        public String message() {
            return message;
        }
    }

    /**
     * What the proxy does with a request a fault hits. The actions are the ways a store call can go wrong on
     * the wire, as opposed to errors of the request itself, which the engine answers on its own.
     */
    public sealed interface Action {

        Action DROP_ANSWER = new DropAnswer();
        Action RESET = new Reset();
        Action THROTTLE = new Throttle(ThrottleError.THROTTLING);
        Action SERVER_ERROR = new ServerError("We encountered an internal error. Please try again.");

        /** Whether the engine gets the request (and so may apply it). */
        boolean forwards();

        /**
         * Forward the request so that the engine applies it, read the answer, then close the client connection
         * without replying: "applied, but the answer never arrived". The SDK retries such a request, so a
         * non-idempotent write is applied twice unless the product guards against it.
         */
        record DropAnswer() implements Action {
            @Override
            public boolean forwards() {
                return true;
            }

            @Override
            public String toString() {
                return "DROP_ANSWER";
            }
        }

        /** Do not forward; close the client connection with SO_LINGER 0, so that the client sees a TCP RST. */
        record Reset() implements Action {
            @Override
            public boolean forwards() {
                return false;
            }

            @Override
            public String toString() {
                return "RESET";
            }
        }

        /**
         * Wait, then forward and answer normally. The engine applies the request after the delay even when the
         * client gave up waiting, as a slow real endpoint would; closing or stopping the proxy ends the wait
         * without forwarding.
         */
        record Delay(Duration duration) implements Action {
            public Delay {
                Objects.requireNonNull(duration, "duration");
                if (duration.isNegative()) {
                    throw new IllegalArgumentException("delay is negative: " + duration);
                }
            }

            @Override
            public boolean forwards() {
                return true;
            }

            @Override
            public String toString() {
                return "DELAY(" + duration + ")";
            }
        }

        /** Answer HTTP 400 with a throttling error; not forwarded. */
        record Throttle(ThrottleError error) implements Action {
            public Throttle {
                Objects.requireNonNull(error, "error");
            }

            @Override
            public boolean forwards() {
                return false;
            }

            @Override
            public String toString() {
                return "THROTTLE(" + error.code() + ")";
            }
        }

        /**
         * For a {@code BatchWriteItem}: forward only its first {@code processed} write requests (in the order of
         * the request), and answer the others as {@code UnprocessedItems}, as DynamoDB does when it throttles part
         * of a batch.
         */
        record LeaveUnprocessed(int processed) implements Action {
            public LeaveUnprocessed {
                if (processed < 0) {
                    throw new IllegalArgumentException("processed is negative: " + processed);
                }
            }

            @Override
            public boolean forwards() {
                return processed > 0;
            }

            @Override
            public String toString() {
                return "LEAVE_UNPROCESSED(after " + processed + ")";
            }
        }

        /** Forward, then answer with the engine's successful answer rewritten ({@link Fault#rewriteAnswer}). */
        record RewriteAnswer(String description, UnaryOperator<Map<String, Object>> rewrite) implements Action {
            public RewriteAnswer {
                Objects.requireNonNull(description, "description");
                Objects.requireNonNull(rewrite, "rewrite");
            }

            @Override
            public boolean forwards() {
                return true;
            }

            @Override
            public String toString() {
                return "REWRITE_ANSWER(" + description + ")";
            }
        }

        /** Answer HTTP 500 {@code InternalFailure} with the message; not forwarded. */
        /** An HTTP 400 with this error type (the part after {@code #}) and message; not forwarded. */
        record UnexpectedError(String type, String message) implements Action {
            public UnexpectedError {
                Objects.requireNonNull(type, "type");
                Objects.requireNonNull(message, "message");
            }

            @Override
            public boolean forwards() {
                return false;
            }

            @Override
            public String toString() {
                return "UNEXPECTED_ERROR " + type;
            }
        }

        record ServerError(String message) implements Action {
            public ServerError {
                Objects.requireNonNull(message, "message");
            }

            @Override
            public boolean forwards() {
                return false;
            }

            @Override
            public String toString() {
                return "SERVER_ERROR";
            }
        }
    }
}

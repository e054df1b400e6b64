package dev.verificationservice.testsupport.dynamodb.faults;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One request the proxy received, as {@link DynamoDbFaultProxy#exchanges()} records it. It is recorded once
 * the proxy has decided what to do with the request and before it answers, forwards or closes anything, so
 * when an SDK call has returned or thrown, every attempt it made is already in the recording.
 *
 * @param sequence  the order of arrival, from 1, over the life of the proxy
 * @param at        when the proxy had read the whole request
 * @param operation the operation from {@code X-Amz-Target} ({@code UpdateItem}), or empty if there was none
 * @param outcome   what the proxy did with it
 * @param fault     the fault that hit it, if any
 */
public record Exchange(long sequence, Instant at, String operation, Outcome outcome, Optional<Fault> fault) {

    public Exchange {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(fault, "fault");
    }

    /** Whether the request was (or, after a delay, was to be) sent to the engine, which may have applied it. */
    public boolean forwarded() {
        return outcome.forwarded();
    }

    /** What the proxy did with a request. */
    public enum Outcome {
        /**
         * Forwarded and answered with the engine's answer; for a {@code TransactWriteItems} the proxy emulates, run
         * against the engine and answered with the emulation's answer.
         */
        FORWARDED(true),
        /** Forwarded after a {@link Fault.Action.Delay}. */
        DELAYED(true),
        /** Forwarded, then the connection closed without the answer ({@link Fault.Action.DropAnswer}). */
        ANSWER_DROPPED(true),
        /** Not forwarded; the connection reset ({@link Fault.Action.Reset}). */
        RESET(false),
        /** Not forwarded; answered with a throttling error ({@link Fault.Action.Throttle}). */
        THROTTLED(false),
        /** Not forwarded; answered with HTTP 500 ({@link Fault.Action.ServerError}). */
        SERVER_ERROR(false),
        /** Answered with an error DynamoDB never gives such a request ({@link Fault#unexpectedError}); not forwarded. */
        UNEXPECTED_ERROR(false),
        /**
         * A {@code BatchWriteItem} of which only the first requests were forwarded, the rest answered as unprocessed
         * ({@link Fault.Action.LeaveUnprocessed}).
         */
        PARTLY_PROCESSED(true),
        /** Forwarded, and the engine's answer rewritten before the client saw it ({@link Fault.Action.RewriteAnswer}). */
        ANSWER_REWRITTEN(true),
        /**
         * Not forwarded; a partition key it would charge had not the capacity left ({@link PartitionThrottling}),
         * answered with {@code ProvisionedThroughputExceededException}.
         */
        PARTITION_THROTTLED(false),
        /** Not forwarded; the proxy was {@linkplain DynamoDbFaultProxy#stop() stopped} and closed the connection. */
        REFUSED_WHILE_STOPPED(false);

        private final boolean forwarded;

        Outcome(boolean forwarded) {
            this.forwarded = forwarded;
        }

        public boolean forwarded() {
            return forwarded;
        }
    }
}

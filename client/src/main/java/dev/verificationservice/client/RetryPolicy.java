package dev.verificationservice.client;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * When the client repeats a call that answered 503 ({@link ServiceUnavailableException}): only for the
 * operations in {@link #operations()}, after the answer's {@code Retry-After} (or {@link #defaultDelay()}
 * when it has none), at most {@link #maxAttempts()} attempts in all, and never when the service asks for a
 * longer wait than {@link #maxDelay()} (the 503 is then thrown at once, with its {@code retryAfter}). So a
 * call takes at most {@code (maxAttempts - 1) * maxDelay} longer than its attempts.
 *
 * <p>By default only the calls that are safe to repeat are retried ({@link Operation#safeToRetry()}: the
 * reads and {@code check}). Sending a code, verifying a code or a device, registering and revoking are
 * repeated only when named with {@link Builder#alsoRetry}: a 503 does not prove that nothing happened (the
 * store may have committed just before its time ran out), so a repeated send may deliver a second message and
 * a repeated verify may answer {@code USED} for the code the first attempt consumed. Nothing else is retried:
 * not a 429 (it is an answer: {@link SendResult.RateLimited}), not a timeout or broken connection
 * ({@link TransportException}).
 */
public final class RetryPolicy {

    private static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO,
            EnumSet.noneOf(Operation.class));
    private static final RetryPolicy DEFAULT = builder().build();

    private final int maxAttempts;
    private final Duration maxDelay;
    private final Duration defaultDelay;
    private final Set<Operation> operations;

    private RetryPolicy(int maxAttempts, Duration maxDelay, Duration defaultDelay, Set<Operation> operations) {
        this.maxAttempts = maxAttempts;
        this.maxDelay = maxDelay;
        this.defaultDelay = defaultDelay;
        Set<Operation> copy = EnumSet.noneOf(Operation.class);
        copy.addAll(operations);
        this.operations = Collections.unmodifiableSet(copy);
    }

    /** Never retries. */
    public static RetryPolicy none() {
        return NONE;
    }

    /**
     * The default: 2 attempts (one retry) of the safe operations, waiting at most 10 seconds (the service
     * asks for 5 after a store failure), 1 second when the answer names no wait.
     */
    public static RetryPolicy defaults() {
        return DEFAULT;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Attempts in all, the first included; 1 means no retry. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The longest wait before a retry; a longer {@code Retry-After} ends the call with the 503. */
    public Duration maxDelay() {
        return maxDelay;
    }

    /** The wait when a 503 has no {@code Retry-After}. */
    public Duration defaultDelay() {
        return defaultDelay;
    }

    /** The operations that are retried. */
    public Set<Operation> operations() {
        return operations;
    }

    /**
     * The wait before attempt {@code attemptsMade + 1} of {@code operation} after a 503 that asked for
     * {@code retryAfter}; empty when the call must end with the 503.
     */
    public Optional<Duration> delayBeforeRetry(Operation operation, int attemptsMade, Optional<Duration> retryAfter) {
        if (!operations.contains(operation) || attemptsMade >= maxAttempts) {
            return Optional.empty();
        }
        Duration delay = retryAfter.orElse(defaultDelay);
        return delay.compareTo(maxDelay) > 0 ? Optional.empty() : Optional.of(delay);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", maxDelay=" + maxDelay + ", defaultDelay=" + defaultDelay
                + ", operations=" + operations + "]";
    }

    /** Builds a {@link RetryPolicy}; starts from {@link #defaults()}. Not thread-safe. */
    public static final class Builder {
        private int maxAttempts = 2;
        private Duration maxDelay = Duration.ofSeconds(10);
        private Duration defaultDelay = Duration.ofSeconds(1);
        private final Set<Operation> operations = EnumSet.noneOf(Operation.class);

        private Builder() {
            for (Operation operation : Operation.values()) {
                if (operation.safeToRetry()) {
                    operations.add(operation);
                }
            }
        }

        /** Attempts in all, at least 1 (no retry). */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The longest wait the client accepts before a retry. */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = requireNotNegative(maxDelay, "maxDelay");
            return this;
        }

        /** The wait when a 503 names none. */
        public Builder defaultDelay(Duration defaultDelay) {
            this.defaultDelay = requireNotNegative(defaultDelay, "defaultDelay");
            return this;
        }

        /**
         * Opts in to retrying operations that are not safe to repeat (see {@link Operation}): only where the
         * caller can live with the consequence (a second message, a {@code USED} answer, a second device token).
         */
        public Builder alsoRetry(Operation... operations) {
            this.operations.addAll(Arrays.asList(operations));
            return this;
        }

        /** Retries only these operations (the safe ones are no longer included unless named). */
        public Builder onlyRetry(Operation... operations) {
            this.operations.clear();
            this.operations.addAll(Arrays.asList(operations));
            return this;
        }

        public RetryPolicy build() {
            return new RetryPolicy(maxAttempts, maxDelay, defaultDelay, operations);
        }

        private static Duration requireNotNegative(Duration duration, String name) {
            Objects.requireNonNull(duration, name);
            if (duration.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative");
            }
            return duration;
        }
    }
}

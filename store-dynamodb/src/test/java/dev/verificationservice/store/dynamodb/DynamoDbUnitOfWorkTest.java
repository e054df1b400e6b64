package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.store.UnitOfWork;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * DynamoDB's independent calls really run at the same time, on the store's own threads: calls that can only end
 * once all of them have started (they meet at a latch) end, also when each hands calls of its own over together.
 */
class DynamoDbUnitOfWorkTest {

    /** How long a call waits for the others: it bounds a hang if they ran one after another, it measures nothing. */
    private static final Duration BOUND = Duration.ofMinutes(1);

    private final UnitOfWork units = DynamoDbUnitOfWork.INSTANCE;

    /** A call that arrives at {@code latch} and answers whether every other party arrived within the bound. */
    private static Supplier<Boolean> meetingAt(CountDownLatch latch) {
        return () -> {
            latch.countDown();
            try {
                return latch.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        };
    }

    @Test
    void independentCallsAreInFlightAtTheSameTime() {
        CountDownLatch met = new CountDownLatch(3);

        assertThat(units.together(List.of(meetingAt(met), meetingAt(met), meetingAt(met))))
                .as("each call saw the others start").containsExactly(true, true, true);
    }

    @Test
    void callsHandedOverTogetherFromInsideACallOverlapTooWithoutWaitingForThemselves() {
        CountDownLatch met = new CountDownLatch(4);
        Supplier<List<Boolean>> pair = () -> units.together(List.of(meetingAt(met), meetingAt(met)));

        assertThat(units.together(List.of(pair, pair))).containsExactly(List.of(true, true), List.of(true, true));
    }

    @Test
    void everyCallRunsToItsEndAndTheFirstFailureInTheOrderGivenIsThrown() {
        CountDownLatch met = new CountDownLatch(2);
        AtomicInteger ended = new AtomicInteger();
        IllegalStateException first = new IllegalStateException("the first call failed");
        IllegalStateException second = new IllegalStateException("the second call failed");
        Supplier<Boolean> meetsThenFails = () -> {
            meetingAt(met).get();
            throw second;
        };
        Supplier<Boolean> waitsThenFails = () -> {
            meetingAt(met).get();
            ended.incrementAndGet();
            throw first;
        };
        Supplier<Boolean> ends = () -> ended.incrementAndGet() > 0;

        assertThatThrownBy(() -> units.together(List.of(waitsThenFails, ends, meetsThenFails)))
                .isSameAs(first).satisfies(thrown -> assertThat(thrown.getSuppressed()).containsExactly(second));
        assertThat(ended).hasValue(2);
    }

    @Test
    void aSingleCallRunsOnTheCallingThread() {
        Thread caller = Thread.currentThread();

        assertThat(units.together(List.<Supplier<Boolean>>of(() -> Thread.currentThread() == caller)))
                .containsExactly(true);
    }
}

package dev.verificationservice.store;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds the first calls that pass it until a given number of them are in flight together; afterwards lets every
 * call through. A call that waits longer than the timeout fails, so calls made one after another fail the
 * operation instead of hanging. Open (holding nothing) until {@link #holdUntilTogether}.
 */
public final class CallGate {

    private volatile Round round = new Round(0);

    /** Holds the next {@code calls} calls that pass the gate until all of them have arrived. */
    public void holdUntilTogether(int calls) {
        round = new Round(calls);
    }

    /** Called by a decorated port before it forwards a call. */
    void pass() {
        round.pass();
    }

    private static final class Round {

        private final CountDownLatch arrived;
        private final AtomicInteger admitted = new AtomicInteger();
        private final int expected;

        Round(int expected) {
            this.expected = expected;
            this.arrived = new CountDownLatch(expected);
        }

        void pass() {
            if (admitted.incrementAndGet() > expected) {
                return;
            }
            arrived.countDown();
            try {
                // Bounds a hang when the calls come one after another; it measures nothing.
                if (!arrived.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("only " + (expected - arrived.getCount()) + " of " + expected
                            + " calls were in flight together");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}

package dev.verificationservice.testsupport.dynamodb.faults;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps emulated transactions "running" until the test releases them, from
 * {@link DynamoDbFaultProxy#holdTransactions(String)}: a transaction whose request body contains the text, once its
 * conditions are checked and its outcome is decided (applied, or cancelled and restored), waits here before it
 * answers, and meanwhile still holds its items and its ClientRequestToken, as a DynamoDB transaction in progress
 * does. So a test can show, without sleeping, what a plain write to one of its items, a second transaction on one
 * of them, or a retry with the same token meets. Thread-safe.
 */
public final class TransactionHold {

    private final String bodyContains;
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger held = new AtomicInteger();
    private final Object arrivals = new Object();
    private int turnedAway; // guarded by arrivals

    TransactionHold(String bodyContains) {
        this.bodyContains = bodyContains;
    }

    boolean matches(String body) {
        return released.getCount() > 0 && body.contains(bodyContains);
    }

    /** Called by the transaction's thread: waits until released (or the proxy's connection is aborted). */
    void hold() throws InterruptedException {
        synchronized (arrivals) {
            held.incrementAndGet();
            arrivals.notifyAll();
        }
        released.await();
    }

    /**
     * Called when the proxy turned a request away because a transaction is running (a conflicting write or
     * transaction, a retry in progress) while this hold keeps transactions running.
     */
    void turnedAway() {
        synchronized (arrivals) {
            turnedAway++;
            arrivals.notifyAll();
        }
    }

    /** Waits until {@code count} requests were turned away while this hold was in force; false on timeout. */
    public boolean awaitTurnedAway(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (arrivals) {
            while (turnedAway < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(arrivals, left);
            }
            return true;
        }
    }

    boolean isReleased() {
        return released.getCount() == 0;
    }

    /** How many transactions this hold has caught so far. */
    public int held() {
        return held.get();
    }

    /** Waits until {@code count} transactions are held; false if the timeout passed first. */
    public boolean awaitHeld(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (arrivals) {
            while (held.get() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(arrivals, left);
            }
            return true;
        }
    }

    /** Lets every held transaction answer, and catches no more. Releasing twice is harmless. */
    public void release() {
        released.countDown();
    }
}

package dev.verificationservice.testsupport.dynamodb.faults;

import java.time.Duration;
import java.util.Objects;

/**
 * A fault in force on a proxy, from {@link DynamoDbFaultProxy#inject}: how often it hit, and a way to remove
 * it before it is used up. Thread-safe; connection threads claim it while the test thread reads it.
 */
public final class FaultHandle {

    private final Fault fault;
    private final DynamoDbFaultProxy proxy;
    private int applied;
    /** Requests this fault was claimed for; {@link #applied} follows once each is recorded. */
    private int claimed;
    private boolean removed;

    FaultHandle(Fault fault, DynamoDbFaultProxy proxy) {
        this.fault = Objects.requireNonNull(fault, "fault");
        this.proxy = proxy;
    }

    public Fault fault() {
        return fault;
    }

    /** How many requests the fault hit so far. */
    public synchronized int applied() {
        return applied;
    }

    /** How many more requests it will hit: {@link Fault#ALWAYS} if unlimited, 0 once used up or removed. */
    public synchronized int remaining() {
        if (removed) {
            return 0;
        }
        return fault.times() == Fault.ALWAYS ? Fault.ALWAYS : fault.times() - claimed;
    }

    /** Whether it will still hit a matching request. */
    public boolean isActive() {
        return remaining() > 0;
    }

    /** Stops the fault; requests it has already hit keep their fate. Removing twice is harmless. */
    public void remove() {
        synchronized (this) {
            removed = true;
            notifyAll();
        }
        proxy.forget(this);
    }

    /**
     * Waits until the fault has hit {@code count} requests, e.g. to know that a delayed request has reached the
     * proxy. Returns false if the timeout passed first.
     */
    public synchronized boolean awaitApplied(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (applied < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** Hits this request if the fault matches it and is not used up; called by the proxy under its fault lock. */
    synchronized boolean claim(String operation, String body) {
        if (removed || (fault.times() != Fault.ALWAYS && claimed >= fault.times())) {
            return false;
        }
        if (!fault.matches(operation, body)) {
            return false;
        }
        claimed++;
        return true;
    }

    /**
     * Counts a claimed request as applied, once the proxy has recorded it: whoever waits in
     * {@link #awaitApplied} then finds it in the proxy's recording too.
     */
    synchronized void markApplied() {
        applied++;
        notifyAll();
    }

    @Override
    public synchronized String toString() {
        return fault + " (hit " + applied + (removed ? ", removed)" : ")");
    }
}

package dev.verificationservice.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * How a store runs the steps of one operation (a send up to its delivery, a verification, a device verification):
 * a unit groups the steps of one operation so that a store may commit them together. It never changes what the
 * steps mean: the same calls leave the same outcome on every store. A failing step ends the unit, and the domain's
 * own compensation (a place given back, a cooldown released) makes what is left the same on every store.
 *
 * <p><b>Algorithm.</b> The domain calls {@link #run} with the operation's steps; every repository call it makes in
 * there (reads, conditional writes, audit entries, compensations) belongs to the unit. Calls none of which needs
 * another's result it hands over as one {@link #together} call.
 * <ol>
 *   <li>A store of one writer (the embedded SQLite store):
 *   <ol>
 *     <li>the unit is one transaction of the writer: its steps run on the writer's thread and connection, one after
 *     another, each in a savepoint of its own (a step that fails leaves nothing of itself);</li>
 *     <li>{@link #together} runs its calls one after another on the calling thread (inside a unit that is the
 *     writer's thread, which every call of the unit must stay on);</li>
 *     <li>the domain's compensations are steps like any other and commit with the unit;</li>
 *     <li>the unit commits once; a failure that leaves {@link #run} writes nothing of the unit.</li>
 *   </ol></li>
 *   <li>A store of separate requests (DynamoDB):
 *   <ol>
 *     <li>each step is its own request, run as it comes;</li>
 *     <li>{@link #together} sends its calls in parallel, on threads the store owns, and waits for all of them;</li>
 *     <li>a failure that leaves {@link #run} leaves the steps before it written, and what the domain gave back
 *     given back.</li>
 *   </ol></li>
 *   <li>The in-memory store and tests ({@link #SEPARATE_STEPS}): each step its own call, as they come, and
 *   {@link #together} one call after another.</li>
 * </ol>
 * So the domain never undoes by rolling back: what a refusal or a failure must not leave, the domain gives back
 * with the same calls on every store, and what it must leave (an audit entry, a counted wrong guess, a lock-out's
 * invalidation) it simply writes.
 *
 * <p>Delivery, or any wait for the outside, never runs inside a unit: a unit holds the embedded store's one
 * writer, and no request may wait for SMTP or SMS while it does.
 */
public interface UnitOfWork {

    /** Steps run as they come, each its own store call, and independent calls one after another. */
    UnitOfWork SEPARATE_STEPS = new UnitOfWork() {
        @Override
        public <T> T run(String what, Supplier<T> steps) {
            return steps.get();
        }

        @Override
        public <T> List<T> together(List<Supplier<T>> calls) {
            return inTurn(calls);
        }
    };

    /**
     * Runs {@code steps} as one unit and returns their result once the unit is durable (on the embedded store:
     * committed). {@code what} names the operation in a failure's message. Called inside a unit, the steps join it.
     *
     * @throws StoreException when the unit could not be written (nothing of it was, on the embedded store)
     */
    <T> T run(String what, Supplier<T> steps);

    /**
     * As {@link #run}, for a unit that records what has already happened and on which no answer rests but its own
     * (the {@code CODE_SENT} entry after a delivery): the store may return once the unit is committed, before it is
     * durable. The embedded store then has it in its write-ahead log, kept across a crash of the process, visible to
     * every read and synced by the sync that follows, a millisecond or so later: a power cut in between may lose it,
     * and an event it holds is relayed only once it is synced. Every other store runs it as {@link #run}.
     */
    default <T> T runRecord(String what, Supplier<T> steps) {
        return run(what, steps);
    }

    /**
     * Runs calls none of which needs another's result or is a condition of another, as the store sees fit (in
     * parallel, or one after another), and returns their results in the order given. Every call runs to its end
     * even when another fails; then the first failure in that order is thrown, the others suppressed in it.
     */
    <T> List<T> together(List<Supplier<T>> calls);

    /**
     * As {@link #together}, but each call's own end, its value or the exception it threw, in the order given: for
     * a caller that must know what each call did (a place taken) also when another failed.
     */
    default <T> List<Settled<T>> settle(List<Supplier<T>> calls) {
        List<Supplier<Settled<T>>> settling = new ArrayList<>();
        for (Supplier<T> call : calls) {
            settling.add(() -> {
                try {
                    return new Settled<>(call.get(), null);
                } catch (RuntimeException failure) {
                    return new Settled<>(null, failure);
                }
            });
        }
        return together(settling);
    }

    /** How one of several independent calls ended: with its value, or with the exception it threw. */
    record Settled<T>(T value, RuntimeException failure) {

        public boolean failed() {
            return failure != null;
        }

        /** The value; the call's own exception if it failed. */
        public T get() {
            if (failure != null) {
                throw failure;
            }
            return value;
        }
    }

    /** {@link #together} one call after another on the calling thread: for stores that run them so. */
    static <T> List<T> inTurn(List<Supplier<T>> calls) {
        List<T> results = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (Supplier<T> call : calls) {
            try {
                results.add(call.get());
            } catch (RuntimeException | Error failure) {
                results.add(null);
                failures.add(failure);
            }
        }
        return resultsOrFirstFailure(results, failures);
    }

    /**
     * The results once every call has ended: {@code results} when {@code failures} is empty, otherwise the first
     * failure thrown with the others suppressed in it.
     */
    static <T> List<T> resultsOrFirstFailure(List<T> results, List<Throwable> failures) {
        if (failures.isEmpty()) {
            return results;
        }
        Throwable first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        if (first instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (first instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException(first);
    }
}

package dev.verificationservice.store;

import java.util.function.Supplier;

/**
 * How a store runs the steps of one operation (a send up to its delivery, a verification, a device verification)
 * as one unit. The domain decides everything, as it does step by step; the unit only says where the steps run and
 * what a refusal undoes.
 *
 * <p><b>Algorithm.</b> The domain calls {@link #run} with the operation's steps: every repository call it makes
 * in there (reads, conditional writes, audit entries) belongs to the unit.
 * <ul>
 *   <li>A store of one writer (the embedded SQLite store) runs the whole unit as one transaction: the steps run on
 *   the writer's thread and connection, one after another, each in a savepoint of its own (a step that fails
 *   leaves nothing of itself), and the unit commits once. Its calls must then stay on that thread:
 *   {@link #holdsCallingThread} says so, and the domain makes its "parallel" calls one after another there.</li>
 *   <li>A store of separate requests (DynamoDB) runs the steps as they come, each its own request, the
 *   independent ones in parallel: {@link #SEPARATE_STEPS}.</li>
 * </ul>
 * A step's failure that the domain does not catch ends the unit: on the embedded store nothing of the unit is
 * written; on DynamoDB the domain gives back what it took, as it does around every step.
 *
 * <p><b>Refusals.</b> A refusal that must leave nothing of what the unit wrote so far calls {@link #undo} with
 * the compensation that gives it back (the places and the cooldown of a refused send): the embedded store rolls
 * the unit back to its start instead, and DynamoDB runs the compensation. What a refusal must leave behind (its
 * audit entry, a counted wrong guess, the invalidation of a lock-out) is written after the undo, or not undone at
 * all, and commits with the unit.
 *
 * <p>Delivery never runs inside a unit: a unit holds the embedded store's one writer, and no request may wait for
 * SMTP or SMS while it does.
 */
public interface UnitOfWork {

    /** Steps run as they come, each its own store call: for stores without one writer, and for tests. */
    UnitOfWork SEPARATE_STEPS = new UnitOfWork() {
        @Override
        public <T> T run(String what, Supplier<T> steps) {
            return steps.get();
        }

        @Override
        public void undo(Runnable compensation) {
            compensation.run();
        }

        @Override
        public boolean holdsCallingThread() {
            return false;
        }
    };

    /**
     * Runs {@code steps} as one unit and returns their result once the unit is durable (on the embedded store:
     * committed). {@code what} names the operation in a failure's message.
     *
     * @throws StoreException when the unit could not be written (nothing of it was, on the embedded store)
     */
    <T> T run(String what, Supplier<T> steps);

    /**
     * Inside {@link #run}: undoes every write of the unit so far. The embedded store rolls the unit back to its
     * start; a store of separate steps runs {@code compensation}, which must give back exactly those writes.
     */
    void undo(Runnable compensation);

    /**
     * Whether the calling thread is running a unit whose calls must stay on it (the embedded store's writer):
     * store calls meant to go out in parallel then run one after another on this thread.
     */
    boolean holdsCallingThread();
}

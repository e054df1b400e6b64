package dev.verificationservice.store.sqlite;

import dev.verificationservice.store.UnitOfWork;
import java.util.function.Supplier;

/**
 * The embedded store's unit of work: the steps of one operation as one transaction of the group-commit writer
 * ({@link GroupCommitWriter#runUnit}). Every store call the steps make runs on the writer's thread in a savepoint
 * of its own, reads included (through the writer's connection), and the unit commits once, with the other
 * transactions of its batch: a send up to its delivery, or a verification, costs one place in one COMMIT instead
 * of one transaction per step. A refusal's {@link #undo} rolls the unit back to its start; what the refusal must
 * leave behind is written after it and commits with the unit.
 */
final class SqliteUnitOfWork implements UnitOfWork {

    private final GroupCommitWriter writer;

    SqliteUnitOfWork(GroupCommitWriter writer) {
        this.writer = writer;
    }

    @Override
    public <T> T run(String what, Supplier<T> steps) {
        return writer.runUnit(what, steps);
    }

    /** Rolls the unit back to its start; the compensation is not needed, nothing of the unit stays. */
    @Override
    public void undo(Runnable compensation) {
        writer.undoUnit();
    }

    @Override
    public boolean holdsCallingThread() {
        return writer.holdsCallingThread();
    }
}

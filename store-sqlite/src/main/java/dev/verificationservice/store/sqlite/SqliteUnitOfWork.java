package dev.verificationservice.store.sqlite;

import dev.verificationservice.store.UnitOfWork;
import java.util.List;
import java.util.function.Supplier;

/**
 * The embedded store's unit of work: the steps of one operation as one transaction of the group-commit writer
 * ({@link GroupCommitWriter#runUnit}). Every store call the steps make runs on the writer's thread in a savepoint
 * of its own, reads included (through the writer's connection), and the unit commits once, with the other
 * transactions of its batch: a send up to its delivery, or a verification, costs one place in one COMMIT instead
 * of one transaction per step. The domain's compensations (a refused send's places given back) are steps like any
 * other and commit with the unit.
 */
final class SqliteUnitOfWork implements UnitOfWork {

    private final GroupCommitWriter writer;

    SqliteUnitOfWork(GroupCommitWriter writer) {
        this.writer = writer;
    }

    @Override
    public <T> T run(String what, Supplier<T> steps) {
        return writer.runUnit(what, steps, false);
    }

    /** Answered at the batch's COMMIT, before its sync ({@link GroupCommitWriter#runUnit}). */
    @Override
    public <T> T runRecord(String what, Supplier<T> steps) {
        return writer.runUnit(what, steps, true);
    }

    /**
     * One after another on the calling thread: inside a unit that is the writer's, which every call of the unit
     * must stay on (another thread's call would wait for the very writer this thread holds); outside one as well,
     * so that the calls run the same way wherever they are made (the store owns no thread for them).
     */
    @Override
    public <T> List<T> together(List<Supplier<T>> calls) {
        return UnitOfWork.inTurn(calls);
    }
}

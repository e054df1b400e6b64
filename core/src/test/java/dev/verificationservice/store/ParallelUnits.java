package dev.verificationservice.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Units whose independent calls each run on a thread of the test's own, as DynamoDB's do: a test shows with it
 * that the domain hands calls over together, not one after another. A call's wait is bounded, to end a hang.
 */
final class ParallelUnits implements UnitOfWork {

    private final ExecutorService threads;

    ParallelUnits(ExecutorService threads) {
        this.threads = threads;
    }

    @Override
    public <T> T run(String what, Supplier<T> steps) {
        return steps.get();
    }

    @Override
    public <T> List<T> together(List<Supplier<T>> calls) {
        List<Future<T>> pending = calls.stream().map(call -> threads.submit(call::get)).toList();
        List<T> results = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (Future<T> call : pending) {
            try {
                results.add(call.get(1, TimeUnit.MINUTES));
            } catch (ExecutionException e) {
                results.add(null);
                failures.add(e.getCause());
            } catch (InterruptedException | TimeoutException e) {
                throw new IllegalStateException("an independent call did not end", e);
            }
        }
        return UnitOfWork.resultsOrFirstFailure(results, failures);
    }
}

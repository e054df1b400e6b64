package dev.verificationservice.store.dynamodb;

import dev.verificationservice.store.UnitOfWork;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * DynamoDB's unit of work: every step is its own request, run as it comes (there is no transaction across
 * requests to group them in), and the independent calls of {@link #together} go out in parallel, so that calls
 * none of which needs another's answer cost one round trip instead of one each.
 */
final class DynamoDbUnitOfWork implements UnitOfWork {

    /**
     * Runs the independent calls: daemon threads, created on demand and ended after a minute idle. Store calls
     * block on I/O, so they need threads of their own (the common fork-join pool has one thread on two cores), and
     * the pool is not bounded because a call may itself hand calls over together (a counted attempt's place is a
     * take beside a read): a bounded pool could wait for itself. How many run at once is bounded by the requests
     * in flight, a few per operation.
     */
    private static final ExecutorService PARALLEL_CALLS = Executors.newCachedThreadPool(new ThreadFactory() {
        private final AtomicInteger threads = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "verification-dynamodb-call-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    });

    static final DynamoDbUnitOfWork INSTANCE = new DynamoDbUnitOfWork();

    private DynamoDbUnitOfWork() {
    }

    @Override
    public <T> T run(String what, Supplier<T> steps) {
        return steps.get();
    }

    /**
     * Every call goes out at once on the store's threads, and the calling thread only waits (had it run one
     * itself, that one could end before the others had even started); a single call runs on the calling thread.
     */
    @Override
    public <T> List<T> together(List<Supplier<T>> calls) {
        if (calls.size() < 2) {
            return UnitOfWork.inTurn(calls);
        }
        List<CompletableFuture<T>> pending = new ArrayList<>();
        for (Supplier<T> call : calls) {
            pending.add(CompletableFuture.supplyAsync(call, PARALLEL_CALLS));
        }
        List<T> results = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (CompletableFuture<T> call : pending) {
            try {
                results.add(call.join());
            } catch (CompletionException e) {
                results.add(null);
                failures.add(e.getCause() == null ? e : e.getCause());
            }
        }
        return UnitOfWork.resultsOrFirstFailure(results, failures);
    }
}

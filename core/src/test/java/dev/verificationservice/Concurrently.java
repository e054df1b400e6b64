package dev.verificationservice;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs one call many times at once, for the core's concurrency tests. */
public final class Concurrently {

    private Concurrently() {
    }

    /** {@code count} calls at once: a pool of as many threads, every call handed over together; their answers. */
    public static <T> List<T> run(int count, Callable<T> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            List<T> results = new ArrayList<>();
            for (Future<T> answer : pool.invokeAll(Collections.nCopies(count, call))) {
                results.add(answer.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}

package dev.verificationservice.spring.security.loginapp;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The link sender's executor in the tests: a real thread of its own, which also notes the thread each task was
 * handed over on, and lets a test wait for every task handed over so far (no sleeping for time).
 */
final class TrackingExecutor implements java.util.concurrent.Executor, AutoCloseable {

    private final ExecutorService threads = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "test-login-link");
        thread.setDaemon(true);
        return thread;
    });
    private final List<CompletableFuture<Void>> tasks = new CopyOnWriteArrayList<>();
    final List<Thread> handedOverOn = new CopyOnWriteArrayList<>();
    final List<Thread> ranOn = new CopyOnWriteArrayList<>();

    @Override
    public void execute(Runnable task) {
        handedOverOn.add(Thread.currentThread());
        tasks.add(CompletableFuture.runAsync(() -> {
            ranOn.add(Thread.currentThread());
            task.run();
        }, threads));
    }

    void awaitAll() {
        CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).join();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}

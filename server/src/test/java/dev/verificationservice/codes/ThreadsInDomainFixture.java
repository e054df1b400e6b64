package dev.verificationservice.codes;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A deliberately wrong class for the architecture test: it sits in a domain package and runs a store call on a
 * thread of its own, where only the store may decide how independent calls run. It exists only in the server's
 * test sources.
 */
public final class ThreadsInDomainFixture {

    private ThreadsInDomainFixture() {
    }

    public static <T> T beside(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call).join();
    }

    public static void started(Runnable call) {
        new Thread(call).start();
    }
}

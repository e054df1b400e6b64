package dev.verificationservice.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The calls a test decorator fails on purpose, by name: before the store runs them ({@link #fail}), or after the
 * store applied them, as if their answer were lost ({@link #loseAnswers}: the SDK's attempts ran out after the
 * write landed).
 */
public final class Faults {

    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    private final Set<String> losingAnswers = ConcurrentHashMap.newKeySet();

    /** Makes every later call of this name fail before it reaches the store. */
    public void fail(String call) {
        failing.add(call);
    }

    /** Lets every later call of this name reach the store, then fails it as if its answer were lost. */
    public void loseAnswers(String call) {
        losingAnswers.add(call);
    }

    /** Runs {@code call} on the store unless asked to fail it, and loses its answer if asked. */
    <T> T call(String name, Supplier<T> call) {
        if (failing.contains(name)) {
            throw new StoreException("failed on purpose: " + name);
        }
        T answer = call.get();
        if (losingAnswers.contains(name)) {
            throw new StoreException("answer lost on purpose: " + name);
        }
        return answer;
    }
}

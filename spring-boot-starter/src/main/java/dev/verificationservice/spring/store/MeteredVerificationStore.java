package dev.verificationservice.spring.store;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.UnitOfWork;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Times every store operation ({@code verification.store.operation}, tagged by operation and outcome), so
 * that Prometheus shows the latency of each access pattern. A unit of work ({@link VerificationStore#units()}) is
 * timed too, as operation {@code unit}: on the embedded store a unit that cannot start (the writer busy past its
 * lock wait) fails before any of its store calls, and would otherwise fail unseen.
 */
public final class MeteredVerificationStore {

    public static final String TIMER = "verification.store.operation";

    private MeteredVerificationStore() {
    }

    public static VerificationStore wrap(VerificationStore store, MeterRegistry registry) {
        return (VerificationStore) Proxy.newProxyInstance(VerificationStore.class.getClassLoader(),
                new Class<?>[] {VerificationStore.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.invoke(store, args);
                    }
                    if (method.getName().equals("units") && method.getParameterCount() == 0) {
                        return timed(store.units(), registry);
                    }
                    long start = System.nanoTime();
                    String outcome = "success";
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        outcome = "error";
                        throw e.getCause();
                    } finally {
                        record(registry, method.getName(), outcome, start);
                    }
                });
    }

    private static UnitOfWork timed(UnitOfWork units, MeterRegistry registry) {
        return new UnitOfWork() {
            @Override
            public <T> T run(String what, Supplier<T> steps) {
                long start = System.nanoTime();
                String outcome = "error";
                try {
                    T result = units.run(what, steps);
                    outcome = "success";
                    return result;
                } finally {
                    record(registry, "unit", outcome, start);
                }
            }

            @Override
            public void undo(Runnable compensation) {
                units.undo(compensation);
            }

            @Override
            public boolean holdsCallingThread() {
                return units.holdsCallingThread();
            }
        };
    }

    private static void record(MeterRegistry registry, String operation, String outcome, long start) {
        Timer.builder(TIMER)
                .description("Latency of one store operation")
                .tag("operation", operation)
                .tag("outcome", outcome)
                .register(registry)
                .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
}

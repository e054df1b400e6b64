package dev.verificationservice.spring.store;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.UnitOfWork;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
        Timers timers = new Timers(registry);
        return (VerificationStore) Proxy.newProxyInstance(VerificationStore.class.getClassLoader(),
                new Class<?>[] {VerificationStore.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.invoke(store, args);
                    }
                    if (method.getName().equals("units") && method.getParameterCount() == 0) {
                        return timed(store.units(), timers);
                    }
                    long start = System.nanoTime();
                    String outcome = "success";
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        outcome = "error";
                        throw e.getCause();
                    } finally {
                        timers.record(method.getName(), outcome, start);
                    }
                });
    }

    private static UnitOfWork timed(UnitOfWork units, Timers timers) {
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
                    timers.record("unit", outcome, start);
                }
            }

            @Override
            public <T> List<T> together(List<Supplier<T>> calls) {
                return units.together(calls);
            }
        };
    }

    /**
     * The timers, each registered once: building and registering one for every call (a lookup in the registry
     * each time) ran on the embedded store's writer thread, for every step of every unit.
     */
    private static final class Timers {
        private final MeterRegistry registry;
        private final Map<String, Timer> byOperationAndOutcome = new ConcurrentHashMap<>();

        Timers(MeterRegistry registry) {
            this.registry = registry;
        }

        void record(String operation, String outcome, long start) {
            long elapsed = System.nanoTime() - start;
            byOperationAndOutcome.computeIfAbsent(operation + ' ' + outcome, key -> Timer.builder(TIMER)
                            .description("Latency of one store operation")
                            .tag("operation", operation)
                            .tag("outcome", outcome)
                            .register(registry))
                    .record(elapsed, TimeUnit.NANOSECONDS);
        }
    }
}

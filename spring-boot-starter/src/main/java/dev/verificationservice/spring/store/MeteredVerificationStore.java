package dev.verificationservice.spring.store;

import dev.verificationservice.VerificationStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * Times every store operation ({@code verification.store.operation}, tagged by operation and outcome), so
 * that Prometheus shows the latency of each access pattern.
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
                    long start = System.nanoTime();
                    String outcome = "success";
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        outcome = "error";
                        throw e.getCause();
                    } finally {
                        Timer.builder(TIMER)
                                .description("Latency of one store operation")
                                .tag("operation", method.getName())
                                .tag("outcome", outcome)
                                .register(registry)
                                .record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
                    }
                });
    }
}

package dev.verificationservice.spring.store;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The timers of {@value MeteredVerificationStore#TIMER}, tagged by port, operation and outcome, each registered
 * once: building and registering one for every call (a lookup in the registry each time) ran on the embedded
 * store's writer thread, for every step of every unit.
 */
final class StoreTimers {

    private final MeterRegistry registry;
    private final Map<String, Timer> byName = new ConcurrentHashMap<>();

    StoreTimers(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The timing of one port's calls, tagged {@code port}. */
    Port port(String port) {
        return new Port(port);
    }

    /** Times the calls of one port, each by its operation. */
    final class Port {

        private final String port;

        private Port(String port) {
            this.port = port;
        }

        /** Runs {@code call} and records how long it took, as a success or, when it threw, an error. */
        <T> T time(String operation, Supplier<T> call) {
            long start = System.nanoTime();
            String outcome = "error";
            try {
                T result = call.get();
                outcome = "success";
                return result;
            } finally {
                record(port, operation, outcome, System.nanoTime() - start);
            }
        }

        /** {@link #time} of a call that answers nothing. */
        void run(String operation, Runnable call) {
            time(operation, () -> {
                call.run();
                return null;
            });
        }
    }

    private void record(String port, String operation, String outcome, long elapsedNanos) {
        byName.computeIfAbsent(port + ' ' + operation + ' ' + outcome, key -> Timer.builder(MeteredVerificationStore.TIMER)
                        .description("Latency of one store operation")
                        .tag("port", port)
                        .tag("operation", operation)
                        .tag("outcome", outcome)
                        .register(registry))
                .record(elapsedNanos, TimeUnit.NANOSECONDS);
    }
}

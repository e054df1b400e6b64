package dev.verificationservice.spring.store;

import dev.verificationservice.StorePorts;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.store.UnitOfWork;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.Supplier;

/**
 * Times every store operation ({@code verification.store.operation}, tagged by port, operation and outcome), so
 * that Prometheus shows the latency of each access pattern: each port is wrapped in a timing decorator of its own,
 * built once. A unit of work ({@link VerificationStore#units()}) is timed too, as port {@code units}, operation
 * {@code unit}: on the embedded store a unit that cannot start (the writer busy past its lock wait) fails before
 * any of its store calls, and would otherwise fail unseen. The readiness check is port {@code store}.
 */
public final class MeteredVerificationStore {

    public static final String TIMER = "verification.store.operation";

    private MeteredVerificationStore() {
    }

    public static VerificationStore wrap(VerificationStore store, MeterRegistry registry) {
        StoreTimers timers = new StoreTimers(registry);
        StorePorts ports = new StorePorts(new MeteredCodes(store.codes(), timers.port("codes")),
                new MeteredDevices(store.devices(), timers.port("devices")),
                new MeteredAudit(store.audit(), timers.port("audit")),
                new MeteredCounters(store.counters(), timers.port("counters")),
                new MeteredIdempotency(store.idempotency(), timers.port("idempotency")),
                new MeteredTotp(store.totp(), timers.port("totp")),
                new MeteredRecoveryCodes(store.recoveryCodes(), timers.port("recoveryCodes")),
                new MeteredWebhooks(store.webhooks(), timers.port("webhooks")),
                new MeteredPasskeys(store.passkeys(), timers.port("passkeys")),
                new MeteredSmsRanges(store.smsRanges(), timers.port("smsRanges")));
        return new Metered(store, ports, timed(store.units(), timers.port("units")), timers.port("store"));
    }

    /** The store's ports, each behind its timing decorator, built once. */
    private record Metered(VerificationStore store, StorePorts ports, UnitOfWork units, StoreTimers.Port itself)
            implements VerificationStore {

        @Override
        public void checkReady() {
            itself.run("checkReady", store::checkReady);
        }

        @Override
        public EventSubscriptions eventSubscriptions() {
            return store.eventSubscriptions();
        }

        @Override
        public void close() {
            store.close();
        }
    }

    private static UnitOfWork timed(UnitOfWork units, StoreTimers.Port timer) {
        return new UnitOfWork() {
            @Override
            public <T> T run(String what, Supplier<T> steps) {
                return timer.time("unit", () -> units.run(what, steps));
            }

            @Override
            public <T> T runRecord(String what, Supplier<T> steps) {
                return timer.time("unit", () -> units.runRecord(what, steps));
            }

            @Override
            public <T> List<T> together(List<Supplier<T>> calls) {
                return units.together(calls);
            }
        };
    }
}

package dev.verificationservice.spring.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Every port's calls are timed by port, operation and outcome, webhooks and passkeys included, without a proxy. */
class MeteredVerificationStoreTest {

    private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final VerificationStore store = MeteredVerificationStore.wrap(new MemoryVerificationStore(), registry);

    private long count(String port, String operation, String outcome) {
        Timer timer = registry.find(MeteredVerificationStore.TIMER).tag("port", port).tag("operation", operation)
                .tag("outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void aWebhookStoreCallIsTimed() {
        assertThat(store.webhooks().listEndpoints()).isEmpty();
        assertThat(store.webhooks().findEndpoint("ep-1")).isEmpty();
        assertThat(store.webhooks().listEndpoints()).isEmpty();

        assertThat(count("webhooks", "listEndpoints", "success")).isEqualTo(2);
        assertThat(count("webhooks", "findEndpoint", "success")).isEqualTo(1);
    }

    @Test
    void aBatchedWebhookCallReachesTheStoresOwnAsOneTimedCall() {
        assertThat(store.webhooks().recordAndClaim(List.of(), "relay-1", List.of(), NOW, NOW.plusSeconds(30))
                .claimed()).isEmpty();

        assertThat(count("webhooks", "recordAndClaim", "success")).isEqualTo(1);
        assertThat(count("webhooks", "claimDeliveries", "success")).as("not split by the decorator").isZero();
    }

    @Test
    void everyPortIsTimedUnderItsOwnName() {
        store.codes().findCodes("ada", CodeType.EMAIL_VERIFICATION);
        store.devices().findDevices("ada", NOW);
        store.audit().queryAudit("ada", NOW.minusSeconds(60), NOW, Optional.empty(), 10, NOW);
        store.counters().deleteCounters("ada", "SEND_EMAIL_VERIFICATION");
        store.idempotency().findIdempotencyKey("key-digest", NOW);
        store.totp().findFactors("ada");
        store.recoveryCodes().findRecoveryCodes("ada");
        store.webhooks().outboxStats(NOW);
        store.passkeys().findPasskeys("ada");
        store.units().run("a unit", () -> store.codes().findCode("digest"));
        store.checkReady();

        assertThat(registry.find(MeteredVerificationStore.TIMER).timers()).extracting(meter -> meter.getId().getTag("port"))
                .containsExactlyInAnyOrder("codes", "codes", "devices", "audit", "counters", "idempotency", "totp",
                        "recoveryCodes", "webhooks", "passkeys", "units", "store");
        assertThat(count("codes", "findCode", "success")).as("a call inside a unit is timed too").isEqualTo(1);
        assertThat(count("units", "unit", "success")).isEqualTo(1);
    }

    @Test
    void aFailedCallIsTimedAsAnErrorAndItsFailureGoesUp() {
        assertThatThrownBy(() -> store.units().run("a unit", () -> {
            throw new StoreException("refused");
        })).isInstanceOf(StoreException.class).hasMessage("refused");

        assertThat(count("units", "unit", "error")).isEqualTo(1);
        assertThat(count("units", "unit", "success")).isZero();
        assertThat(registry.getMeters()).extracting(Meter::getId).allMatch(id -> id.getTag("port") != null);
    }

    @Test
    void aRecordUnitReachesTheStoresOwnRecordTimed() {
        List<String> reached = new ArrayList<>();
        UnitOfWork recording = new UnitOfWork() {
            @Override
            public <T> T run(String what, Supplier<T> steps) {
                reached.add("run");
                return steps.get();
            }

            @Override
            public <T> T runRecord(String what, Supplier<T> steps) {
                reached.add("runRecord");
                return steps.get();
            }

            @Override
            public <T> List<T> together(List<Supplier<T>> calls) {
                return UnitOfWork.inTurn(calls);
            }
        };
        VerificationStore memory = new MemoryVerificationStore();
        VerificationStore withUnits = (VerificationStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {VerificationStore.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("units")) {
                        return recording;
                    }
                    try {
                        return method.invoke(memory, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        MeteredVerificationStore.wrap(withUnits, registry).units().runRecord("a record", () -> null);

        // Not the default, which would run it as a unit that waits for its sync.
        assertThat(reached).containsExactly("runRecord");
        assertThat(count("units", "unit", "success")).isEqualTo(1);
    }
}

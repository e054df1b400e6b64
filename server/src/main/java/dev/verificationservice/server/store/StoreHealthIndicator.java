package dev.verificationservice.server.store;

import dev.verificationservice.spi.StoreException;
import dev.verificationservice.store.VerificationStore;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/** Readiness: the store answers. It is part of the readiness group, not of liveness. */
@Component("store")
public class StoreHealthIndicator implements HealthIndicator {

    private final VerificationStore store;

    public StoreHealthIndicator(VerificationStore store) {
        this.store = store;
    }

    @Override
    public Health health() {
        try {
            store.checkReady();
            return Health.up().build();
        } catch (StoreException e) {
            return Health.down().withDetail("error", e.getMessage()).build();
        }
    }
}

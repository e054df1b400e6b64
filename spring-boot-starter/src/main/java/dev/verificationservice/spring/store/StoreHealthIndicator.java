package dev.verificationservice.spring.store;

import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.VerificationStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Readiness: the store can serve requests now (on the embedded store: could write now). It is part of the
 * readiness group, not of liveness. The probe has its own time limit ({@code VERIFICATION_READINESS_TIMEOUT}):
 * a store that does not answer within it is DOWN, so a load balancer stops sending traffic in time instead
 * of waiting on a hung check. A slow check still running is not started twice. Registered by
 * {@link StoreAutoConfiguration} as {@code verificationStoreHealthIndicator}: the health component
 * {@code verificationStore}.
 */
public class StoreHealthIndicator implements HealthIndicator, DisposableBean {

    private final VerificationStore store;
    private final Duration timeout;
    private final ExecutorService probe = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "verification-readiness-probe");
        thread.setDaemon(true);
        return thread;
    });
    private CompletableFuture<Void> running = CompletableFuture.completedFuture(null);

    public StoreHealthIndicator(VerificationStore store, VerificationProperties properties) {
        this.store = store;
        this.timeout = properties.readinessTimeout();
    }

    @Override
    public Health health() {
        CompletableFuture<Void> check;
        synchronized (this) {
            if (running.isDone()) {
                running = CompletableFuture.runAsync(store::checkReady, probe);
            }
            check = running;
        }
        try {
            check.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Health.up().build();
        } catch (TimeoutException e) {
            return Health.down().withDetail("error", "the store did not answer within " + timeout).build();
        } catch (ExecutionException e) {
            return Health.down().withDetail("error", String.valueOf(e.getCause().getMessage())).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down().withDetail("error", "interrupted").build();
        }
    }

    @Override
    public void destroy() {
        probe.shutdownNow();
    }
}

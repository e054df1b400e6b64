package dev.verificationservice.spring.events;

import dev.verificationservice.events.RelayRunner;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the webhook relay once the application context is ready and stops it first on shutdown, before the store
 * closes: a worker never writes to a closed store, and an attempt cut short is simply due again after its lease (at
 * least once, so nothing is lost). Off when {@code verification.webhooks.relay=false}.
 */
public final class RelayLifecycle implements SmartLifecycle {

    private final Supplier<RelayRunner> runners;
    private final boolean enabled;
    private volatile RelayRunner running;

    RelayLifecycle(Supplier<RelayRunner> runners, boolean enabled) {
        this.runners = runners;
        this.enabled = enabled;
    }

    @Override
    public synchronized void start() {
        if (enabled && running == null) {
            running = runners.get().start();
        }
    }

    @Override
    public synchronized void stop() {
        if (running != null) {
            running.close();
            running = null;
        }
    }

    @Override
    public boolean isRunning() {
        return running != null;
    }

    /** One poll now, on the caller's thread (tests and tools); a no-op while the relay is off. */
    public void pollNow() {
        RelayRunner runner = running;
        if (runner != null) {
            runner.poll();
        }
    }
}

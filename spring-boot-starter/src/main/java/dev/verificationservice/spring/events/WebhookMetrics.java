package dev.verificationservice.spring.events;

import dev.verificationservice.events.DeliveryOutcome;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.events.WebhookRepository.OutboxStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The relay's meters: {@code verification.webhooks.deliveries} (by outcome and endpoint id; an endpoint id is the
 * operator's, never a user's), {@code verification.webhooks.endpoints.disabled}, and the gauges
 * {@code verification.webhooks.pending} and {@code verification.webhooks.oldest.pending.age} (seconds). The gauges
 * read the store's outbox at most once every {@link #STATS_MAX_AGE}, so a scrape never hammers the store.
 */
public final class WebhookMetrics implements RelayMetrics {

    static final Duration STATS_MAX_AGE = Duration.ofSeconds(15);

    private final MeterRegistry registry;
    private final WebhookRepository store;
    private final Clock clock;
    private Instant readAt = Instant.MIN;
    private OutboxStats stats = new OutboxStats(0, Optional.empty());

    public WebhookMetrics(MeterRegistry registry, WebhookRepository store, Clock clock) {
        this.registry = registry;
        this.store = store;
        this.clock = clock;
        Gauge.builder("verification.webhooks.pending", this, metrics -> metrics.stats().pending())
                .description("Events not yet fanned out plus deliveries waiting for an attempt").register(registry);
        Gauge.builder("verification.webhooks.oldest.pending.age", this, metrics -> metrics.stats().oldest()
                        .map(oldest -> Duration.between(oldest, metrics.clock.instant()).toMillis() / 1000.0).orElse(0.0))
                .description("Age in seconds of the oldest event still waiting to be delivered").baseUnit("seconds")
                .register(registry);
    }

    @Override
    public void attempted(String endpointId, DeliveryOutcome outcome) {
        Counter.builder("verification.webhooks.deliveries").description("Webhook delivery attempts, by outcome")
                .tag("outcome", outcome.name()).tag("endpoint", endpointId).register(registry).increment();
    }

    @Override
    public void endpointDisabled(String endpointId) {
        Counter.builder("verification.webhooks.endpoints.disabled")
                .description("Endpoints the relay disabled (410, or three days of failure)")
                .tag("endpoint", endpointId).register(registry).increment();
    }

    private synchronized OutboxStats stats() {
        Instant now = clock.instant();
        if (readAt.plus(STATS_MAX_AGE).isBefore(now)) {
            try {
                stats = store.outboxStats(now);
            } catch (RuntimeException e) {
                // The store is down: keep the last reading; the store's own health check reports the outage.
            }
            readAt = now;
        }
        return stats;
    }
}

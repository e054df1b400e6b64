package dev.verificationservice.spring.events;

import dev.verificationservice.events.DeliveryOutcome;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.WebhookRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;

/**
 * The relay's metrics (contract §15): deliveries by outcome and endpoint, endpoints disabled, and two gauges read
 * from the store when scraped: events and deliveries still pending, and the age of the oldest. An endpoint id is
 * operator-chosen configuration, not personal data, so it may be a tag; no tag holds a user id or a URL.
 */
public final class WebhookMetrics implements RelayMetrics {

    private final MeterRegistry registry;

    public WebhookMetrics(MeterRegistry registry, WebhookRepository store, Clock clock) {
        this.registry = registry;
        Gauge.builder("verification.webhooks.pending", () -> store.outboxStats(clock.instant()).pending())
                .description("Events not yet fanned out plus deliveries waiting for an attempt").register(registry);
        Gauge.builder("verification.webhooks.oldest.pending.seconds", () -> store.outboxStats(clock.instant()).oldest()
                        .map(oldest -> Math.max(0, Duration.between(oldest, clock.instant()).toSeconds()))
                        .orElse(0L))
                .description("Age of the oldest pending event or delivery (0 when none)").register(registry);
    }

    @Override
    public void attempted(String endpointId, DeliveryOutcome outcome) {
        Counter.builder("verification.webhooks.deliveries").description("Delivery attempts, by outcome and endpoint")
                .tags("outcome", outcome.name(), "endpoint", endpointId).register(registry).increment();
    }

    @Override
    public void endpointDisabled(String endpointId) {
        Counter.builder("verification.webhooks.endpoints.disabled")
                .description("Endpoints the relay disabled (failing 3 days, or answering 410)")
                .tags("endpoint", endpointId).register(registry).increment();
    }
}

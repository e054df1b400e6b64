package dev.verificationservice.events;

import java.time.Duration;

/**
 * The relay's settings.
 *
 * @param allowPrivateAddresses  deliver to loopback, private and link-local addresses too (an internal receiver)
 * @param workers                threads that write outcomes and claim deliveries (each endpoint's store steps),
 *                               across all endpoints; none waits for a receiver's answer
 * @param perEndpointConcurrency requests in flight to one endpoint at most: an endpoint is sent to at most this many
 *                               requests per round trip of its receiver
 * @param pollInterval           how often the relay looks for undelivered events and due retries
 * @param batchSize              events and deliveries read per look
 */
public record WebhookSettings(boolean allowPrivateAddresses, int workers, int perEndpointConcurrency,
                              Duration pollInterval, int batchSize) {

    public WebhookSettings {
        if (workers < 1 || perEndpointConcurrency < 1 || batchSize < 1) {
            throw new IllegalArgumentException("workers, perEndpointConcurrency and batchSize must be at least 1");
        }
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw new IllegalArgumentException("pollInterval must be positive");
        }
    }

    public static WebhookSettings defaults() {
        return new WebhookSettings(false, 8, 8, Duration.ofSeconds(1), 100);
    }
}

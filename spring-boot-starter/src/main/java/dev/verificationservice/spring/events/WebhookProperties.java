package dev.verificationservice.spring.events;

import dev.verificationservice.events.WebhookSettings;
import dev.verificationservice.spring.StartupException;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Events out under {@code verification.webhooks.*} ({@code VERIFICATION_WEBHOOKS_*}).
 *
 * @param enabled                {@code auto} (default): on with the embedded store, on with DynamoDB when
 *                               {@code VERIFICATION_ENCRYPTION_KEYS} is set (endpoint secrets are stored sealed under
 *                               them); {@code true} requires the keys there; {@code false} runs no relay
 * @param allowPrivateAddresses  deliver to loopback, private and link-local addresses too (an internal receiver);
 *                               off, only public addresses and http(s)://localhost are accepted
 * @param workers                threads that write outcomes and claim deliveries, across all endpoints
 * @param perEndpointConcurrency requests in flight to one endpoint at most
 * @param pollInterval           how often the relay looks for undelivered events and due retries
 * @param batchSize              events and deliveries read per look
 * @param subscriptionsRefresh   how long an instance uses its read of the endpoints to decide which audit entries
 *                               are events before reading them again: an endpoint registered on another instance
 *                               receives the events written here from at most this long after its registration
 */
@ConfigurationProperties(prefix = "verification.webhooks")
public record WebhookProperties(@DefaultValue("auto") String enabled,
                                @DefaultValue("false") boolean allowPrivateAddresses,
                                @DefaultValue("8") int workers,
                                @DefaultValue("8") int perEndpointConcurrency,
                                @DefaultValue("PT1S") Duration pollInterval,
                                @DefaultValue("100") int batchSize,
                                @DefaultValue("PT30S") Duration subscriptionsRefresh) {

    /** The store's view of the endpoints is read again this often; a duration that is not positive is refused. */
    public Duration subscriptionsRefreshInterval() {
        if (subscriptionsRefresh.isNegative() || subscriptionsRefresh.isZero()) {
            throw new StartupException("VERIFICATION_WEBHOOKS_SUBSCRIPTIONS_REFRESH must be a positive duration.",
                    "Set it to a duration such as PT30S (the default), or leave it unset.");
        }
        return subscriptionsRefresh;
    }

    /** The relay's settings; counts below 1 or a poll interval that is not positive are a refused start. */
    public WebhookSettings settings() {
        try {
            return new WebhookSettings(allowPrivateAddresses, workers, perEndpointConcurrency, pollInterval, batchSize);
        } catch (IllegalArgumentException e) {
            throw new StartupException("The webhook relay's settings are not usable: " + e.getMessage() + ".",
                    "Set VERIFICATION_WEBHOOKS_WORKERS, VERIFICATION_WEBHOOKS_PER_ENDPOINT_CONCURRENCY and "
                            + "VERIFICATION_WEBHOOKS_BATCH_SIZE to 1 or more (defaults 8, 8, 100), and "
                            + "VERIFICATION_WEBHOOKS_POLL_INTERVAL to a positive duration such as PT1S.", e);
        }
    }
}

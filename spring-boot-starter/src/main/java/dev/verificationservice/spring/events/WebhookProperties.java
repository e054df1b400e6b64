package dev.verificationservice.spring.events;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The webhook relay's settings (contract §15), {@code verification.webhooks.*}: each is also an environment variable
 * ({@code VERIFICATION_WEBHOOKS_WORKERS} is {@code verification.webhooks.workers}). A record of its own beside
 * {@code VerificationProperties}, so events add no parameter to the settings every part of the service reads.
 *
 * @param relay                  run the relay in this process ({@code false}: endpoints can still be managed and
 *                               events are still written; another instance on the same store delivers them)
 * @param allowPrivateAddresses  deliver to loopback, private and link-local addresses too (an internal receiver)
 * @param workers                threads sending requests, across all endpoints
 * @param perEndpointConcurrency requests in flight to one endpoint at most: a hanging receiver holds this many
 *                               workers, never all of them
 * @param pollInterval           how often the relay looks for new events and due retries
 * @param batchSize              events and deliveries read per look
 */
@ConfigurationProperties(prefix = "verification.webhooks")
public record WebhookProperties(
        @DefaultValue("true") boolean relay,
        @DefaultValue("false") boolean allowPrivateAddresses,
        @DefaultValue("8") int workers,
        @DefaultValue("2") int perEndpointConcurrency,
        @DefaultValue("PT1S") Duration pollInterval,
        @DefaultValue("100") int batchSize) {
}

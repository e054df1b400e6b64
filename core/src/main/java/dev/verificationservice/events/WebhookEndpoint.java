package dev.verificationservice.events;

import dev.verificationservice.security.SealedSecret;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * An operator-registered receiver: the item {@code WEBHOOKS} / {@code ENDPOINT#<endpointId>}. Its secrets are stored
 * sealed (they must be recoverable to sign); the answer to a registration or rotation is the only place one appears in
 * clear.
 *
 * @param eventTypes        the subscribed types; empty means all
 * @param previousSecret    the secret before the last rotation, which still signs until {@code previousUntil}
 * @param failingSince      when deliveries started failing without a success since; the endpoint is disabled once
 *                          this is {@link RetrySchedule#DISABLE_AFTER} old
 * @param disabledReason    why it was disabled (the relay's own words), while {@link EndpointStatus#DISABLED}
 * @param version           bumped on every change; writes are conditioned on it so concurrent relays never lose one
 */
public record WebhookEndpoint(
        String endpointId,
        URI url,
        Set<String> eventTypes,
        Optional<String> description,
        EndpointStatus status,
        Instant createdAt,
        SealedSecret secret,
        Optional<SealedSecret> previousSecret,
        Optional<Instant> previousUntil,
        Optional<Instant> failingSince,
        Optional<String> disabledReason,
        long version) {

    public WebhookEndpoint {
        eventTypes = Set.copyOf(eventTypes);
    }

    public boolean subscribesTo(String eventType) {
        return eventTypes.isEmpty() || eventTypes.contains(eventType);
    }

    public boolean isEnabled() {
        return status == EndpointStatus.ENABLED;
    }

    WebhookEndpoint withStatus(EndpointStatus newStatus, Optional<Instant> failing, Optional<String> reason) {
        return new WebhookEndpoint(endpointId, url, eventTypes, description, newStatus, createdAt, secret,
                previousSecret, previousUntil, failing, reason, version + 1);
    }

    WebhookEndpoint withSecrets(SealedSecret current, Optional<SealedSecret> previous, Optional<Instant> until) {
        return new WebhookEndpoint(endpointId, url, eventTypes, description, status, createdAt, current, previous,
                until, failingSince, disabledReason, version + 1);
    }
}

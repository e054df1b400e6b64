package dev.verificationservice.client;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A webhook endpoint as the operator API shows it: never its secret.
 *
 * @param eventTypes               the event types it gets; empty for all
 * @param enabled                  whether the relay delivers to it (it disables an endpoint failing for 3 days, or
 *                                 answering 410)
 * @param previousSecretSignsUntil after a rotation, until when the old secret signs beside the new
 */
public record WebhookEndpoint(String endpointId, URI url, List<String> eventTypes, Optional<String> description,
                              boolean enabled, Instant createdAt, Optional<String> disabledReason,
                              Optional<Instant> failingSince, Optional<Instant> previousSecretSignsUntil) {

    public WebhookEndpoint {
        eventTypes = List.copyOf(eventTypes);
    }
}

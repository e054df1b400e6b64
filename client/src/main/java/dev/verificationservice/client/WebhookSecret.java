package dev.verificationservice.client;

/**
 * An endpoint's signing secret ({@code whsec_...}), answered by a registration or a rotation and never again: give
 * it to the receiver, which checks each request's {@code webhook-signature} with it.
 *
 * @param endpoint the endpoint as it is after the call
 */
public record WebhookSecret(String endpointId, String secret, WebhookEndpoint endpoint) {

    /** Never printed: the secret is shown once. */
    @Override
    public String toString() {
        return "WebhookSecret[endpointId=" + endpointId + ", secret=<redacted>]";
    }
}

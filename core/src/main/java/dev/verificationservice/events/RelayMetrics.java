package dev.verificationservice.events;

/** What the relay reports; the starter counts these with Micrometer. */
public interface RelayMetrics {

    void attempted(String endpointId, DeliveryOutcome outcome);

    void endpointDisabled(String endpointId);

    static RelayMetrics none() {
        return new RelayMetrics() {
            @Override
            public void attempted(String endpointId, DeliveryOutcome outcome) {
            }

            @Override
            public void endpointDisabled(String endpointId) {
            }
        };
    }
}

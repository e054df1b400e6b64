package dev.verificationservice.delivery;

import dev.verificationservice.codes.DevelopmentOutbox;
import java.util.List;
import java.util.Optional;

/**
 * The configured channels, and the outbox when there is none; closing it closes the clients they own (the SNS
 * client, say). The starter makes one from {@code verification.*}; an application without Spring may make its own.
 */
public record DeliveryChannels(RoutingCodeSender sender, Optional<DevelopmentOutbox> outbox,
                               List<AutoCloseable> resources) implements AutoCloseable {
    @Override
    public void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}

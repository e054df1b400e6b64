package dev.verificationservice.delivery;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.OutgoingCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/** Hands each code to the channel configured for its delivery method. */
public final class RoutingCodeSender implements CodeSender {

    private final Map<DeliveryMethod, CodeSender> channels;

    public RoutingCodeSender(Map<DeliveryMethod, CodeSender> channels) {
        this.channels = new EnumMap<>(DeliveryMethod.class);
        this.channels.putAll(channels);
    }

    public Set<DeliveryMethod> methods() {
        return channels.keySet();
    }

    public boolean supports(DeliveryMethod method) {
        return channels.containsKey(method);
    }

    @Override
    public void send(OutgoingCode message) throws DeliveryException {
        CodeSender channel = channels.get(message.deliveryMethod());
        if (channel == null) {
            throw new DeliveryException("no " + message.deliveryMethod() + " channel is configured");
        }
        channel.send(message);
    }
}

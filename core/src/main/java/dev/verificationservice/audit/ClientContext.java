package dev.verificationservice.audit;

import dev.verificationservice.validation.Inputs;
import java.util.Optional;

/** What the caller tells about the person's client; copied into every audit entry it causes. */
public record ClientContext(Optional<String> ipAddress, Optional<String> userAgent, Optional<String> deviceId) {

    /** Every value is checked however the context is built: it ends up in audit items. */
    public ClientContext {
        ipAddress = Inputs.optionalIpAddress(orNull(ipAddress));
        // Only recorded, never refused for what a person's browser sent: hidden format characters become visible.
        userAgent = Inputs.optionalRecordedText("userAgent", orNull(userAgent), Inputs.MAX_USER_AGENT_LENGTH)
                .map(Inputs::visible);
        String device = orNull(deviceId);
        deviceId = device == null || device.isEmpty() ? Optional.empty() : Optional.of(Inputs.deviceId(device));
    }

    public static ClientContext none() {
        return new ClientContext(Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** From raw request values, each of which may be null. */
    public static ClientContext of(String ipAddress, String userAgent, String deviceId) {
        return new ClientContext(Optional.ofNullable(ipAddress), Optional.ofNullable(userAgent),
                Optional.ofNullable(deviceId));
    }

    @SuppressWarnings("OptionalAssignedToNull")
    private static String orNull(Optional<String> value) {
        return value == null ? null : value.orElse(null);
    }

    public ClientContext withDeviceId(String deviceId) {
        return new ClientContext(ipAddress, userAgent, Optional.of(deviceId));
    }
}

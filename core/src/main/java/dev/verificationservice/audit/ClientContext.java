package dev.verificationservice.audit;

import dev.verificationservice.validation.Inputs;
import java.util.Optional;

/** What the caller tells about the person's client; copied into every audit entry it causes. */
public record ClientContext(Optional<String> ipAddress, Optional<String> userAgent, Optional<String> deviceId) {

    public static ClientContext none() {
        return new ClientContext(Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** Validates raw request values (each may be null). */
    public static ClientContext of(String ipAddress, String userAgent, String deviceId) {
        return new ClientContext(
                Inputs.optionalIpAddress(ipAddress),
                Inputs.optionalText("userAgent", userAgent, Inputs.MAX_USER_AGENT_LENGTH),
                deviceId == null || deviceId.isEmpty() ? Optional.empty() : Optional.of(Inputs.deviceId(deviceId)));
    }

    public ClientContext withDeviceId(String deviceId) {
        return new ClientContext(ipAddress, userAgent, Optional.of(deviceId));
    }
}

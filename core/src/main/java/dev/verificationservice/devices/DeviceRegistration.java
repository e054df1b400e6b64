package dev.verificationservice.devices;

import dev.verificationservice.audit.ClientContext;
import java.util.Optional;

/** A request to remember a device for a user. */
public record DeviceRegistration(
        String userId,
        String deviceId,
        String deviceType,
        Optional<String> deviceName,
        Optional<String> pushToken,
        ClientContext client) {

    public DeviceRegistration {
        deviceName = deviceName == null ? Optional.empty() : deviceName;
        pushToken = pushToken == null ? Optional.empty() : pushToken;
        client = client == null ? ClientContext.none() : client;
    }

    public static DeviceRegistration of(String userId, String deviceId, String deviceType) {
        return new DeviceRegistration(userId, deviceId, deviceType, Optional.empty(), Optional.empty(),
                ClientContext.none());
    }
}

package dev.verificationservice.client;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code POST /v1/devices}: remember a device for 30 days (sliding with each use).
 *
 * @param userId     the user the device belongs to
 * @param deviceId   the application's id of the device (1 to 128 of {@code [A-Za-z0-9._@+:-]})
 * @param deviceType free text such as {@code WEB}, {@code IOS}, {@code ANDROID}
 * @param deviceName a name the person recognises, e.g. "Work laptop"
 * @param pushToken  the device's push token, kept with it
 * @param client     the person's request (IP address and user agent), for the audit log
 */
public record DeviceRegistration(String userId, String deviceId, String deviceType, Optional<String> deviceName,
                                 Optional<String> pushToken, ClientContext client) {

    public DeviceRegistration {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(deviceId, "deviceId");
        Objects.requireNonNull(deviceType, "deviceType");
        Objects.requireNonNull(deviceName, "deviceName");
        Objects.requireNonNull(pushToken, "pushToken");
        Objects.requireNonNull(client, "client");
    }

    /** A registration without name, push token or client context. */
    public static DeviceRegistration of(String userId, String deviceId, String deviceType) {
        return builder(userId, deviceId, deviceType).build();
    }

    public static Builder builder(String userId, String deviceId, String deviceType) {
        return new Builder(userId, deviceId, deviceType);
    }

    /** Never shows the push token. */
    @Override
    public String toString() {
        return "DeviceRegistration[userId=" + userId + ", deviceId=" + deviceId + ", deviceType=" + deviceType
                + ", deviceName=" + deviceName.orElse(null) + "]";
    }

    /** Builds a {@link DeviceRegistration}. Not thread-safe. */
    public static final class Builder {
        private final String userId;
        private final String deviceId;
        private final String deviceType;
        private Optional<String> deviceName = Optional.empty();
        private Optional<String> pushToken = Optional.empty();
        private ClientContext client = ClientContext.none();

        private Builder(String userId, String deviceId, String deviceType) {
            this.userId = userId;
            this.deviceId = deviceId;
            this.deviceType = deviceType;
        }

        public Builder deviceName(String deviceName) {
            this.deviceName = Optional.of(deviceName);
            return this;
        }

        public Builder pushToken(String pushToken) {
            this.pushToken = Optional.of(pushToken);
            return this;
        }

        public Builder client(ClientContext client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        public DeviceRegistration build() {
            return new DeviceRegistration(userId, deviceId, deviceType, deviceName, pushToken, client);
        }
    }
}

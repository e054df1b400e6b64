package dev.verificationservice.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Remembered devices: {@code /v1/devices} and {@code /v1/users/{userId}/devices}. From {@link VerificationClient#devices()}. */
public final class DevicesClient {

    private final Transport transport;

    DevicesClient(Transport transport) {
        this.transport = transport;
    }

    /**
     * {@code POST /v1/devices}: registers a new token for the device (its earlier tokens stay until they
     * expire or are revoked). The answer's secret is shown once. Never retried unless the {@link RetryPolicy}
     * names {@link Operation#REGISTER_DEVICE}.
     */
    public RegisteredDevice register(DeviceRegistration registration) {
        Objects.requireNonNull(registration, "registration");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("userId", registration.userId());
        body.put("deviceId", registration.deviceId());
        body.put("deviceType", registration.deviceType());
        registration.deviceName().ifPresent(name -> body.put("deviceName", name));
        registration.pushToken().ifPresent(token -> body.put("pushToken", token));
        registration.client().ipAddress().ifPresent(ip -> body.put("ipAddress", ip));
        registration.client().userAgent().ifPresent(agent -> body.put("userAgent", agent));
        Fields answer = transport.post(Operation.REGISTER_DEVICE, "/v1/devices", body).json();
        return new RegisteredDevice(answer.text("deviceId"), answer.text("tokenId"), answer.text("secret"),
                answer.instant("expiresAt"));
    }

    /** {@code POST /v1/devices/verify} without client context: see {@link #verify(String, String, ClientContext)}. */
    public DeviceVerifyResult verify(String deviceId, String secret) {
        return verify(deviceId, secret, ClientContext.none());
    }

    /**
     * {@code POST /v1/devices/verify}: whether the device's remember-me secret is valid; a valid use slides
     * its expiry (up to the maximum life). {@code client}'s IP address and user agent go to the audit log.
     */
    public DeviceVerifyResult verify(String deviceId, String secret, ClientContext client) {
        Objects.requireNonNull(deviceId, "deviceId");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(client, "client");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("deviceId", deviceId);
        body.put("secret", secret);
        client.ipAddress().ifPresent(ip -> body.put("ipAddress", ip));
        client.userAgent().ifPresent(agent -> body.put("userAgent", agent));
        Fields answer = transport.post(Operation.VERIFY_DEVICE, "/v1/devices/verify", body).json();
        if (!answer.bool("valid")) {
            return new DeviceVerifyResult.Invalid(InvalidDeviceReason.of(answer.text("reason")));
        }
        return new DeviceVerifyResult.Valid(answer.text("userId"), answer.instant("expiresAt"));
    }

    /** {@code GET /v1/users/{userId}/devices}: the user's live device tokens, without secrets. */
    public List<Device> list(String userId) {
        Objects.requireNonNull(userId, "userId");
        Fields answer = transport.get(Operation.LIST_DEVICES, devicesPath(userId)).json();
        return answer.objects("devices").stream()
                .map(device -> new Device(device.text("deviceId"), device.text("tokenId"), device.text("deviceType"),
                        device.optionalText("deviceName"), device.optionalText("pushToken"),
                        device.instant("lastActiveAt"), device.instant("createdAt"), device.instant("expiresAt"),
                        device.optionalText("ipAddress"), device.optionalText("userAgent")))
                .toList();
    }

    /**
     * {@code DELETE /v1/users/{userId}/devices/{deviceId}}: revokes every token of the device; answers how many
     * live ones there were.
     */
    public int revoke(String userId, String deviceId) {
        Objects.requireNonNull(deviceId, "deviceId");
        return transport.delete(Operation.REVOKE_DEVICE, devicesPath(userId) + "/" + Transport.segment(deviceId))
                .json().integer("revoked");
    }

    /**
     * {@code DELETE /v1/users/{userId}/devices}: revokes all of the user's devices (for example after a
     * password change), including one registered a moment before; answers how many live tokens there were.
     */
    public int revokeAll(String userId) {
        return transport.delete(Operation.REVOKE_ALL_DEVICES, devicesPath(userId)).json().integer("revoked");
    }

    /**
     * {@code DELETE /v1/users/{userId}/devices?passkeys=true}: as {@link #revokeAll}, and every passkey of the user
     * goes too, each audited as {@code PASSKEY_REVOKED}: the call after an account takeover.
     */
    public RevokedCredentials revokeAllWithPasskeys(String userId) {
        Fields answer = transport.delete(Operation.REVOKE_ALL_DEVICES, devicesPath(userId) + "?passkeys=true").json();
        return new RevokedCredentials(answer.integer("revoked"), answer.integer("passkeysRevoked"));
    }

    private static String devicesPath(String userId) {
        Objects.requireNonNull(userId, "userId");
        return "/v1/users/" + Transport.segment(userId) + "/devices";
    }
}

package dev.verificationservice.devices;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Remembered devices. Registering makes a 256-bit remember-me secret, stores only its HMAC as the
 * tokenId, and writes the token together with its DEVICE_ADDED audit entry in one transaction. Using the
 * secret slides the token's expiry in one conditional write. Revocation deletes through the user index.
 */
public final class DeviceService {

    private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9_-]{" + SecureTokens.RANDOM_TOKEN_LENGTH + "}");

    private final DeviceRepository devices;
    private final AuditLog audit;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;
    private final Duration deviceTtl;

    public DeviceService(DeviceRepository devices, AuditLog audit, SecretKeyRing keys, SecureTokens tokens,
                         Clock clock, Duration deviceTtl) {
        this.devices = devices;
        this.audit = audit;
        this.keys = keys;
        this.tokens = tokens;
        this.clock = clock;
        this.deviceTtl = deviceTtl;
    }

    public RegisteredDevice register(DeviceRegistration request) {
        String userId = Inputs.userId(request.userId());
        String deviceId = Inputs.deviceId(request.deviceId());
        String deviceType = Inputs.typeName("deviceType", request.deviceType());
        Optional<String> deviceName = Inputs.optionalText("deviceName", request.deviceName().orElse(null),
                Inputs.MAX_DEVICE_NAME_LENGTH);
        Optional<String> pushToken = Inputs.optionalText("pushToken", request.pushToken().orElse(null),
                Inputs.MAX_PUSH_TOKEN_LENGTH);
        ClientContext client = request.client().withDeviceId(deviceId);

        String secret = tokens.randomToken();
        String tokenId = keys.currentDigest(digestInput(deviceId, secret));
        Instant now = Instants.toMillis(clock.instant());
        Instant expiresAt = Instants.wholeSecond(now.plus(deviceTtl));
        DeviceToken token = new DeviceToken(deviceId, tokenId, userId, deviceType, deviceName, pushToken, now,
                client.ipAddress(), client.userAgent(), now, expiresAt);

        Map<String, String> details = new LinkedHashMap<>();
        details.put("deviceType", deviceType);
        details.put("tokenId", tokenId);
        deviceName.ifPresent(name -> details.put("deviceName", name));
        AuditEntry deviceAdded = audit.newEntry(userId, AuditEventType.DEVICE_ADDED, true, Optional.empty(), details,
                client);
        devices.registerDevice(token, deviceAdded);
        return new RegisteredDevice(userId, deviceId, tokenId, secret, expiresAt);
    }

    /** Checks a remember-me secret and, when it is valid, slides the token's expiry. */
    public DeviceVerification verify(String deviceId, String secret, ClientContext client) {
        String device = Inputs.deviceId(deviceId);
        String presented = Inputs.required("secret", secret);
        if (!SECRET.matcher(presented).matches()) {
            throw new InvalidInputException("secret", "must be the " + SecureTokens.RANDOM_TOKEN_LENGTH
                    + "-character secret returned when the device was registered");
        }
        Instant now = Instants.toMillis(clock.instant());
        Instant newExpiry = Instants.wholeSecond(now.plus(deviceTtl));
        ClientContext context = client.withDeviceId(device);
        Optional<DeviceToken> found = Optional.empty();
        for (String tokenId : keys.candidateDigests(digestInput(device, presented))) {
            TouchOutcome outcome = devices.touchDevice(device, tokenId, now, newExpiry);
            if (outcome instanceof TouchOutcome.Touched touched) {
                DeviceToken token = touched.token();
                audit.recordSuccess(token.userId(), AuditEventType.DEVICE_VERIFIED, Map.of("tokenId", token.tokenId()),
                        context);
                return new DeviceVerification.Valid(token.userId(), token.deviceId(), token.expiresAt());
            }
            found = ((TouchOutcome.Rejected) outcome).current();
            if (found.isPresent()) {
                break;
            }
        }
        if (found.isEmpty()) {
            return new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND);
        }
        DeviceToken expired = found.get();
        audit.recordFailure(expired.userId(), AuditEventType.DEVICE_VERIFIED, DeviceVerification.Reason.EXPIRED.name(),
                Map.of("tokenId", expired.tokenId()), context);
        return new DeviceVerification.Invalid(DeviceVerification.Reason.EXPIRED);
    }

    /** The user's unexpired device tokens, without secrets. */
    public List<DeviceToken> list(String userId) {
        Instant now = clock.instant();
        return devices.findDevices(Inputs.userId(userId), now).stream()
                .filter(token -> token.isActiveAt(now))
                .toList();
    }

    /** Forgets one device of the user; returns how many of its unexpired tokens were revoked. */
    public int revoke(String userId, String deviceId, ClientContext client) {
        String user = Inputs.userId(userId);
        String device = Inputs.deviceId(deviceId);
        int revoked = countActive(devices.deleteDevices(user, Optional.of(device)));
        audit.recordSuccess(user, AuditEventType.DEVICE_REVOKED, Map.of("count", Integer.toString(revoked)),
                client.withDeviceId(device));
        return revoked;
    }

    /** Forgets every device of the user (for example on a password change); returns how many were revoked. */
    public int revokeAll(String userId, ClientContext client) {
        String user = Inputs.userId(userId);
        int revoked = countActive(devices.deleteDevices(user, Optional.empty()));
        audit.recordSuccess(user, AuditEventType.DEVICES_REVOKED, Map.of("count", Integer.toString(revoked)), client);
        return revoked;
    }

    private int countActive(List<DeviceToken> deleted) {
        Instant now = clock.instant();
        return (int) deleted.stream().filter(token -> token.isActiveAt(now)).count();
    }

    private static String digestInput(String deviceId, String secret) {
        return "DEVICE|" + deviceId + "|" + secret;
    }
}

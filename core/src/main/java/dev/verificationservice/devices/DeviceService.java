package dev.verificationservice.devices;

import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.Inputs;
import dev.verificationservice.validation.InvalidInputException;
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
 * tokenId, and writes the token together with its DEVICE_ADDED audit entry in one transaction.
 *
 * <p>Using the secret reads the token (by key, under each key of the ring) and then, in one atomic write,
 * slides its expiry on the condition that it is still unexpired and younger than the maximum device life; a
 * token created before a revoke-all's marker is refused (the store reads the marker after that write, or in the
 * same transaction). A token found under a previous key is moved to the current key in that same write, so that
 * devices in regular use do not keep an old key alive. A device expires at the earlier of
 * its last use plus the device lifetime and its registration plus the maximum life. A valid use is a way in like a
 * factor's success: it resets the user's wrong answers in a row ({@link CountedAttempts#succeeded}).
 *
 * <p>Revoke-all first records a per-user "revoked before now" marker, then deletes through the user index.
 * The index is eventually consistent, so a token registered a moment before can escape the deletion; the
 * marker still refuses it on its next use.
 */
public final class DeviceService {

    private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9_-]{" + SecureTokens.RANDOM_TOKEN_LENGTH + "}");

    private final DeviceRepository devices;
    private final AuditLog audit;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;
    private final Duration deviceTtl;
    private final Duration maxLife;
    private final UnitOfWork units;
    private final CountedAttempts attempts;

    /**
     * What the service works with besides its lifetimes.
     *
     * @param devices  the store's remembered devices
     * @param attempts the counted guesses every factor shares: a valid use resets the wrong answers in a row
     * @param audit    the user's security history
     * @param keys     the HMAC keys secrets are digested under (current first)
     * @param tokens   secrets and ids, from one {@code SecureRandom}
     * @param clock    the service's time: every validity decision compares with it
     * @param units    how the steps of one operation run as a unit on the store
     */
    public record Collaborators(DeviceRepository devices, CountedAttempts attempts, AuditLog audit,
                                SecretKeyRing keys, SecureTokens tokens, Clock clock, UnitOfWork units) {
    }

    /**
     * @param deviceTtl how long a device stays remembered after its last use
     * @param maxLife   how long after its first registration a device must register again, however often used
     */
    public DeviceService(Collaborators with, Duration deviceTtl, Duration maxLife) {
        this.devices = with.devices();
        this.audit = with.audit();
        this.keys = with.keys();
        this.tokens = with.tokens();
        this.clock = with.clock();
        this.units = with.units();
        this.attempts = with.attempts();
        this.deviceTtl = deviceTtl;
        this.maxLife = maxLife;
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

    /** Checks a remember-me secret and, when it is valid, slides the token's expiry (and moves it to the current key). */
    public DeviceVerification verify(String deviceId, String secret, ClientContext client) {
        String device = Inputs.deviceId(deviceId);
        String presented = Inputs.required("secret", secret);
        if (!SECRET.matcher(presented).matches()) {
            throw new InvalidInputException("secret", "must be the " + SecureTokens.RANDOM_TOKEN_LENGTH
                    + "-character secret returned when the device was registered");
        }
        Instant now = Instants.toMillis(clock.instant());
        ClientContext context = client.withDeviceId(device);
        List<String> candidates = keys.candidateDigests(digestInput(device, presented));
        // The read, the use and its audit entry are one unit of work (on the embedded store one transaction).
        return units.run("verify a device", () -> verify(device, candidates, now, context));
    }

    private DeviceVerification verify(String device, List<String> candidates, Instant now, ClientContext context) {
        for (int index = 0; index < candidates.size(); index++) {
            String tokenId = candidates.get(index);
            Optional<DeviceToken> found = devices.findDevice(device, tokenId)
                    .filter(stored -> SecureTokens.constantTimeEquals(stored.tokenId(), tokenId));
            if (found.isEmpty()) {
                continue;
            }
            DeviceToken token = found.get();
            if (!isActiveAt(token, now)) {
                audit.recordFailure(token.userId(), AuditEventType.DEVICE_VERIFIED,
                        DeviceVerification.Reason.EXPIRED.name(), Map.of("tokenId", token.tokenId()), context);
                return new DeviceVerification.Invalid(DeviceVerification.Reason.EXPIRED);
            }
            Optional<String> rekeyTo = index == 0 ? Optional.empty() : Optional.of(candidates.get(0));
            UseOutcome outcome = devices.useDevice(new DeviceUse(token, rekeyTo, now,
                    Instants.wholeSecond(now.plus(deviceTtl)), now.minus(maxLife), tokens.attemptId()));
            if (outcome instanceof UseOutcome.Used used) {
                DeviceToken after = used.token();
                Map<String, String> details = new LinkedHashMap<>();
                details.put("tokenId", after.tokenId());
                rekeyTo.ifPresent(ignored -> details.put("rekeyedFrom", token.tokenId()));
                audit.recordSuccess(after.userId(), AuditEventType.DEVICE_VERIFIED, details, context);
                attempts.succeeded(after.userId());
                return new DeviceVerification.Valid(after.userId(), after.deviceId(), expiryOf(after));
            }
            // Revoked by a revoke-all (its marker), or deleted or expired since the read: not a device any more.
            audit.recordFailure(token.userId(), AuditEventType.DEVICE_VERIFIED, "REVOKED",
                    Map.of("tokenId", token.tokenId()), context);
            return new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND);
        }
        return new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND);
    }

    /** When the token stops being valid: its last use plus the lifetime, but never after its maximum life. */
    private Instant expiryOf(DeviceToken token) {
        Instant lifeEnds = Instants.wholeSecond(token.createdAt().plus(maxLife));
        return token.expiresAt().isBefore(lifeEnds) ? token.expiresAt() : lifeEnds;
    }

    private boolean isActiveAt(DeviceToken token, Instant now) {
        return now.getEpochSecond() < expiryOf(token).getEpochSecond();
    }

    /** The user's unexpired device tokens, without secrets. */
    public List<DeviceToken> list(String userId) {
        Instant now = clock.instant();
        String user = Inputs.userId(userId);
        Optional<Instant> revokedBefore = devices.findDevicesRevokedBefore(user);
        return devices.findDevices(user, now).stream()
                .filter(token -> isActiveAt(token, now))
                // A token that escaped a revoke-all's deletion is not a device any more.
                .filter(token -> revokedBefore.map(token.createdAt()::isAfter).orElse(true))
                .map(token -> new DeviceToken(token.deviceId(), token.tokenId(), token.userId(), token.deviceType(),
                        token.deviceName(), token.pushToken(), token.lastActiveAt(), token.ipAddress(),
                        token.userAgent(), token.createdAt(), expiryOf(token)))
                .toList();
    }

    /** Forgets one device of the user; returns how many of its unexpired tokens were revoked. */
    public int revoke(String userId, String deviceId, ClientContext client) {
        return revoke(userId, deviceId, Map.of(), client);
    }

    /**
     * Forgets one device of the user, with {@code context} (for example the operator's key id) among the
     * details of its DEVICE_REVOKED entry; returns how many of its unexpired tokens were revoked.
     */
    public int revoke(String userId, String deviceId, Map<String, String> context, ClientContext client) {
        String user = Inputs.userId(userId);
        String device = Inputs.deviceId(deviceId);
        // The deletion and its audit entry: one unit of work (on the embedded store one transaction).
        return units.run("revoke a device", () -> {
            int revoked = countActive(devices.deleteDevices(user, Optional.of(device)));
            audit.recordSuccess(user, AuditEventType.DEVICE_REVOKED, revokedDetails(revoked, context),
                    client.withDeviceId(device));
            return revoked;
        });
    }

    /** Forgets every device of the user (for example on a password change); returns how many were revoked. */
    public int revokeAll(String userId, ClientContext client) {
        return revokeAll(userId, Map.of(), client);
    }

    /** Forgets every device of the user, with {@code context} among the details of its DEVICES_REVOKED entry. */
    public int revokeAll(String userId, Map<String, String> context, ClientContext client) {
        String user = Inputs.userId(userId);
        // The marker first: a token the index does not show yet escapes the deletion, but not the marker.
        Instant now = Instants.toMillis(clock.instant());
        return units.run("revoke every device", () -> {
            devices.markDevicesRevoked(user, now, now.plus(maxLife).plus(deviceTtl));
            int revoked = countActive(devices.deleteDevices(user, Optional.empty()));
            audit.recordSuccess(user, AuditEventType.DEVICES_REVOKED, revokedDetails(revoked, context), client);
            return revoked;
        });
    }

    private static Map<String, String> revokedDetails(int revoked, Map<String, String> context) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("count", Integer.toString(revoked));
        details.putAll(context);
        return details;
    }

    private int countActive(List<DeviceToken> deleted) {
        Instant now = clock.instant();
        return (int) deleted.stream().filter(token -> isActiveAt(token, now)).count();
    }

    private static String digestInput(String deviceId, String secret) {
        return "DEVICE|" + deviceId + "|" + secret;
    }
}

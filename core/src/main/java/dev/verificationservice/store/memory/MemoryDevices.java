package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.devices.UseOutcome;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.time.Instants;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Remembered devices in memory: tokens by device and token id, and each user's revoke-all marker.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Register: refused (nothing written) when the token's key or its {@code DEVICE_ADDED} entry's key is taken;
 *   otherwise both are stored.</li>
 *   <li>Use: refused when the token is gone, expired at {@code now} (its ttl second), created at or before
 *   {@code notCreatedBefore} (its maximum life) or at or before the user's revoke-all marker (to the millisecond);
 *   otherwise its expiry slides, and with a re-key it moves to its new token id. A token gone from its old id but
 *   found under the new one with the same creation time is this very re-key, retried.</li>
 *   <li>Revoke-all marker: moves only forward in time.</li>
 *   <li>List and delete: the user's tokens (of one device, if named), by device and token id; the list leaves out
 *   those expired at {@code now}.</li>
 * </ol>
 */
final class MemoryDevices implements DeviceRepository {

    /** A user's revoke-all marker: tokens created at or before {@code revokedBefore} are revoked. */
    record Marker(String userId, Instant revokedBefore, Instant expiresAt) {
    }

    private record Key(String deviceId, String tokenId) {
    }

    private static final Comparator<DeviceToken> ORDER = Comparator.comparing(DeviceToken::deviceId)
            .thenComparing(DeviceToken::tokenId);

    private final Object lock;
    private final MemoryAudit audit;
    private final Map<Key, DeviceToken> tokens = new LinkedHashMap<>();
    private final Map<String, Marker> markers = new HashMap<>();

    MemoryDevices(Object lock, MemoryAudit audit) {
        this.lock = lock;
        this.audit = audit;
    }

    private static Key key(DeviceToken token) {
        return new Key(token.deviceId(), token.tokenId());
    }

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        synchronized (lock) {
            if (tokens.containsKey(key(token))) {
                throw new StoreException("device registration refused: a token of device " + token.deviceId()
                        + " with this token id already exists; nothing was written");
            }
            audit.requireFree(deviceAdded, "device registration");
            tokens.put(key(token), token);
            audit.add(deviceAdded);
        }
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        synchronized (lock) {
            return Optional.ofNullable(tokens.get(new Key(deviceId, tokenId)));
        }
    }

    @Override
    public UseOutcome useDevice(DeviceUse use) {
        DeviceToken token = use.token();
        synchronized (lock) {
            DeviceToken current = tokens.get(key(token));
            if (current == null && use.rekeyTo().isPresent()) {
                return Optional.ofNullable(tokens.get(new Key(token.deviceId(), use.rekeyTo().get())))
                        .filter(moved -> moved.createdAt().equals(token.createdAt()))
                        .<UseOutcome>map(UseOutcome.Used::new).orElseGet(UseOutcome.Refused::new);
            }
            if (current == null || !current.isActiveAt(use.now())
                    || !current.createdAt().isAfter(use.notCreatedBefore()) || revoked(current)) {
                return new UseOutcome.Refused();
            }
            DeviceToken after = new DeviceToken(token.deviceId(), use.rekeyTo().orElse(token.tokenId()),
                    token.userId(), current.deviceType(), current.deviceName(), current.pushToken(), use.now(),
                    current.ipAddress(), current.userAgent(), current.createdAt(), use.newExpiresAt());
            if (use.rekeyTo().isPresent() && tokens.containsKey(key(after))) {
                throw new StoreException("the device token could not move to its current key: the new key is taken");
            }
            tokens.remove(key(current));
            tokens.put(key(after), after);
            return new UseOutcome.Used(after);
        }
    }

    private boolean revoked(DeviceToken token) {
        return Optional.ofNullable(markers.get(token.userId()))
                .filter(marker -> !Instants.toMillis(marker.revokedBefore()).isBefore(Instants.toMillis(token.createdAt())))
                .isPresent();
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        synchronized (lock) {
            Marker current = markers.get(userId);
            if (current == null
                    || Instants.toMillis(current.revokedBefore()).isBefore(Instants.toMillis(revokedBefore))) {
                markers.put(userId, new Marker(userId, revokedBefore, expiresAt));
            }
        }
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        synchronized (lock) {
            return Optional.ofNullable(markers.get(userId)).map(Marker::revokedBefore);
        }
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        synchronized (lock) {
            return ofUser(userId, Optional.empty()).stream().filter(token -> token.isActiveAt(now)).toList();
        }
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        synchronized (lock) {
            List<DeviceToken> doomed = ofUser(userId, deviceId);
            doomed.forEach(token -> tokens.remove(key(token)));
            return doomed;
        }
    }

    private List<DeviceToken> ofUser(String userId, Optional<String> deviceId) {
        return tokens.values().stream().filter(token -> token.userId().equals(userId))
                .filter(token -> deviceId.map(token.deviceId()::equals).orElse(true)).sorted(ORDER).toList();
    }

    /** Every stored token, for the raw view of the tests. */
    List<DeviceToken> stored() {
        synchronized (lock) {
            return List.copyOf(tokens.values());
        }
    }

    /** Every revoke-all marker, for the raw view of the tests. */
    List<Marker> markers() {
        synchronized (lock) {
            return List.copyOf(markers.values());
        }
    }
}

package dev.verificationservice.devices;

import dev.verificationservice.audit.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Storage SPI for remembered devices. */
public interface DeviceRepository {

    /**
     * Writes the token and its {@code DEVICE_ADDED} audit entry atomically: afterwards both exist or
     * neither does.
     *
     * @throws dev.verificationservice.spi.StoreException when the write was refused or failed
     */
    void registerDevice(DeviceToken token, AuditEntry deviceAdded);

    /**
     * Slides the token's {@code lastActiveAt} and expiry in one conditional write whose condition is:
     * the item exists and its ttl is after {@code now}.
     */
    TouchOutcome touchDevice(String deviceId, String tokenId, Instant now, Instant newExpiresAt);

    /** The user's tokens whose ttl is after {@code now}, through the user index. */
    List<DeviceToken> findDevices(String userId, Instant now);

    /**
     * Deletes the user's tokens (all of them, or those of one device) and returns what it deleted,
     * expired ones included.
     */
    List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId);
}

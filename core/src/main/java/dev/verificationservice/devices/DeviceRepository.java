package dev.verificationservice.devices;

import dev.verificationservice.audit.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Storage SPI for remembered devices. */
public interface DeviceRepository {

    /**
     * Writes the token and its {@code DEVICE_ADDED} audit entry atomically: afterwards both exist or
     * neither does. The entry is written together with its undelivered event, in the same atomic step, and a retry
     * after a lost answer leaves exactly one entry and one event ({@link dev.verificationservice.audit.AuditRepository})
     * whether it is answered done or refused.
     *
     * @throws dev.verificationservice.store.StoreException when the write was refused or failed
     */
    void registerDevice(DeviceToken token, AuditEntry deviceAdded);

    /** The stored token (a strongly consistent read), expired or not. */
    Optional<DeviceToken> findDevice(String deviceId, String tokenId);

    /**
     * Uses a token in one atomic step (see {@link DeviceUse} for the condition): slides its expiry and, if asked,
     * moves it to its current-key tokenId. Retried after its answer was lost, a re-key is recognised by the token
     * found under the new tokenId.
     */
    UseOutcome useDevice(DeviceUse use);

    /** The user's tokens whose ttl is after {@code now}, through the user index. */
    List<DeviceToken> findDevices(String userId, Instant now);

    /**
     * Deletes the user's tokens (all of them, or those of one device) and returns what it deleted,
     * expired ones included. One device's tokens are found on the table itself, so a token registered a moment
     * before is deleted too; all of a user's tokens through the user index, which may lag (the revoke-all marker,
     * {@link #markDevicesRevoked}, refuses what it misses).
     */
    List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId);

    /**
     * Records that every token of the user created at or before {@code revokedBefore} is revoked, whether or not
     * the user index shows it yet, until {@code expiresAt}. The marker only ever moves forward in time.
     */
    void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt);

    /** The user's revoke-all marker, if one is kept: tokens created at or before it are revoked. */
    Optional<Instant> findDevicesRevokedBefore(String userId);
}

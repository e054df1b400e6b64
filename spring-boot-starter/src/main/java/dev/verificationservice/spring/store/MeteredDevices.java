package dev.verificationservice.spring.store;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.devices.UseOutcome;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The store's remembered devices, each call timed. */
record MeteredDevices(DeviceRepository devices, StoreTimers.Port timer) implements DeviceRepository {

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        timer.run("registerDevice", () -> devices.registerDevice(token, deviceAdded));
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        return timer.time("findDevice", () -> devices.findDevice(deviceId, tokenId));
    }

    @Override
    public UseOutcome useDevice(DeviceUse use) {
        return timer.time("useDevice", () -> devices.useDevice(use));
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return timer.time("findDevices", () -> devices.findDevices(userId, now));
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        return timer.time("deleteDevices", () -> devices.deleteDevices(userId, deviceId));
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        timer.run("markDevicesRevoked", () -> devices.markDevicesRevoked(userId, revokedBefore, expiresAt));
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        return timer.time("findDevicesRevokedBefore", () -> devices.findDevicesRevokedBefore(userId));
    }
}

package dev.verificationservice.store.sqlite;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.devices.UseOutcome;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.DeviceItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Remembered devices in the SQLite table.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>register a device: the token's and the {@code DEVICE_ADDED} entry's {@code INSERT ... ON CONFLICT DO
 *   NOTHING} in one transaction, rolled back unless both wrote a row;</li>
 *   <li>use a device token: in one transaction, read the token and the user's revoke-all marker; refused when
 *   the token is gone, expired, past its maximum life or created at or before the marker; otherwise its expiry
 *   slides (and a re-key deletes it and inserts it under its new tokenId; a retry of that re-key finds it
 *   there);</li>
 *   <li>revoke-all marker: in one transaction, written only if later than the one stored;</li>
 *   <li>list and delete a user's devices: one statement on GSI1 ({@code gsi1sk} prefix range); the list filters
 *   {@code ttl > :now} itself.</li>
 * </ul>
 */
final class SqliteDevices implements DeviceRepository {

    private final SqliteTable table;

    SqliteDevices(SqliteTable table) {
        this.table = table;
    }

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        Map<String, Object> tokenItem = DeviceItems.deviceItem(token);
        Map<String, Object> auditItem = table.auditItem(deviceAdded);
        table.inTransaction("register a device", connection -> {
            if (table.insertIfAbsent(connection, tokenItem) != 1) {
                throw new StoreException("device registration refused: a token with key " + TableItems.string(tokenItem, ItemAttributes.PK)
                        + " / " + TableItems.string(tokenItem, ItemAttributes.SK) + " already exists; nothing was written");
            }
            if (table.insertIfAbsent(connection, auditItem) != 1) {
                throw new StoreException("device registration refused: the DEVICE_ADDED audit key "
                        + TableItems.string(auditItem, ItemAttributes.SK) + " is taken; nothing was written, retry the registration");
            }
            return null;
        });
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, TableKeys.deviceToken(deviceId, tokenId)).map(DeviceItems::device);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a device token", e);
        }
    }

    @Override
    public UseOutcome useDevice(DeviceUse use) {
        DeviceToken token = use.token();
        TableKeys.PrimaryKey key = TableKeys.deviceToken(token.deviceId(), token.tokenId());
        return table.inTransaction("use a device token", connection -> {
            Optional<DeviceToken> current = table.selectItem(connection, key).map(DeviceItems::device);
            if (current.isEmpty() && use.rekeyTo().isPresent()) {
                // Moved already: a retry of this very re-key finds the token under its new id.
                Optional<DeviceToken> moved = table.selectItem(connection, TableKeys.deviceToken(token.deviceId(),
                        use.rekeyTo().get())).map(DeviceItems::device)
                        .filter(after -> after.createdAt().equals(token.createdAt()));
                return moved.<UseOutcome>map(UseOutcome.Used::new).orElseGet(UseOutcome.Refused::new);
            }
            if (current.isEmpty() || current.get().expiresAt().getEpochSecond() <= use.now().getEpochSecond()
                    || !current.get().createdAt().isAfter(use.notCreatedBefore())
                    || revokedAfterCreation(connection, current.get())) {
                return new UseOutcome.Refused();
            }
            DeviceToken after = new DeviceToken(token.deviceId(), use.rekeyTo().orElse(token.tokenId()), token.userId(),
                    current.get().deviceType(), current.get().deviceName(), current.get().pushToken(), use.now(),
                    current.get().ipAddress(), current.get().userAgent(), current.get().createdAt(), use.newExpiresAt());
            if (use.rekeyTo().isPresent()) {
                table.deleteItem(connection, key);
                if (table.insertIfAbsent(connection, DeviceItems.deviceItem(after)) != 1) {
                    throw new StoreException("the device token could not move to its current key: the new key is taken");
                }
            } else {
                table.putItem(connection, DeviceItems.deviceItem(after));
            }
            return new UseOutcome.Used(after);
        });
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        try (Connection connection = table.readConnection()) {
            return table.selectItem(connection, TableKeys.devicesRevoked(userId)).map(DeviceItems::revokedBefore);
        } catch (SQLException e) {
            throw SqliteTable.failure("read the revoke-all marker", e);
        }
    }

    /** The user's revoke-all marker is at or after the token's creation: the token is revoked. */
    private boolean revokedAfterCreation(Connection connection, DeviceToken token) throws SQLException {
        return table.selectItem(connection, TableKeys.devicesRevoked(token.userId()))
                .map(marker -> TableItems.string(marker, ItemAttributes.REVOKED_BEFORE))
                .filter(revokedBefore -> revokedBefore.compareTo(DeviceItems.createdAtText(token)) >= 0)
                .isPresent();
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        Map<String, Object> marker = DeviceItems.revocationItem(userId, revokedBefore, expiresAt);
        table.inTransaction("mark a user's devices revoked", connection -> {
            Optional<String> current = table.selectItem(connection, TableKeys.devicesRevoked(userId))
                    .map(item -> TableItems.string(item, ItemAttributes.REVOKED_BEFORE));
            String next = TableItems.string(marker, ItemAttributes.REVOKED_BEFORE);
            if (current.isEmpty() || current.get().compareTo(next) < 0) {
                table.putItem(connection, marker);
            }
            return null;
        });
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return table.selectByIndexPrefix(TableKeys.user(userId), TableKeys.devicesPrefix(), Optional.of(now))
                .stream().map(DeviceItems::device).toList();
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        String prefix = deviceId.map(TableKeys::deviceOfUserPrefix).orElse(TableKeys.devicesPrefix());
        return table.deleteByIndexPrefix(TableKeys.user(userId), prefix).stream().map(DeviceItems::device).toList();
    }
}

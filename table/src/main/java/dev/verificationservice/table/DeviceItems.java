package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.devices.DeviceToken;
import java.time.Instant;
import java.util.Map;

/**
 * Remembered devices: the token item ({@code DEVICE#<deviceId>} / {@code TOKEN#<tokenId>}, in GSI1 under
 * {@code USER#<userId>} / {@code DEVICE#<deviceId>#<tokenId>}) and the user's revoke-all marker ({@code USER#<userId>}
 * / {@link TableKeys#devicesRevoked}).
 */
public final class DeviceItems {

    private DeviceItems() {
    }

    public static Map<String, Object> deviceItem(DeviceToken token) {
        TableKeys.IndexKey index = TableKeys.deviceIndex(token.userId(), token.deviceId(), token.tokenId());
        Map<String, Object> item = keyed(TableKeys.deviceToken(token.deviceId(), token.tokenId()));
        item.put(GSI1PK, index.gsi1pk());
        item.put(GSI1SK, index.gsi1sk());
        item.put(DEVICE_ID, token.deviceId());
        item.put(TOKEN_ID, token.tokenId());
        item.put(USER_ID, token.userId());
        item.put(DEVICE_TYPE, token.deviceType());
        token.deviceName().ifPresent(name -> item.put(DEVICE_NAME, name));
        token.pushToken().ifPresent(push -> item.put(PUSH_TOKEN, push));
        item.put(LAST_ACTIVE_AT, Timestamps.format(token.lastActiveAt()));
        token.ipAddress().ifPresent(ip -> item.put(IP_ADDRESS, ip));
        token.userAgent().ifPresent(agent -> item.put(USER_AGENT, agent));
        item.put(CREATED_AT, Timestamps.format(token.createdAt()));
        item.put(TTL, epochSeconds(token.expiresAt()));
        return item;
    }

    public static DeviceToken device(Map<String, Object> item) {
        return new DeviceToken(
                string(item, DEVICE_ID),
                string(item, TOKEN_ID),
                string(item, USER_ID),
                string(item, DEVICE_TYPE),
                optionalString(item, DEVICE_NAME),
                optionalString(item, PUSH_TOKEN),
                Timestamps.parse(string(item, LAST_ACTIVE_AT)),
                optionalString(item, IP_ADDRESS),
                optionalString(item, USER_AGENT),
                Timestamps.parse(string(item, CREATED_AT)),
                Instant.ofEpochSecond(number(item, TTL)));
    }

    /** The user's revoke-all marker. */
    public static Map<String, Object> revocationItem(String userId, Instant revokedBefore, Instant expiresAt) {
        Map<String, Object> item = keyed(TableKeys.devicesRevoked(userId));
        item.put(USER_ID, userId);
        item.put(REVOKED_BEFORE, Timestamps.format(revokedBefore));
        item.put(TTL, epochSeconds(expiresAt));
        return item;
    }

    /** When the marker says the user's devices were revoked. */
    public static Instant revokedBefore(Map<String, Object> item) {
        return Timestamps.parse(string(item, REVOKED_BEFORE));
    }

    /** A token's createdAt as the table compares it with a revoke-all marker (fixed-width text sorts as time). */
    public static String createdAtText(DeviceToken token) {
        return Timestamps.format(token.createdAt());
    }
}

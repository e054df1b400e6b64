package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.boundAsValues;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.describeCancellation;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.devices.UseOutcome;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.DeviceItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Remembered devices on DynamoDB: the token items, all of one device in the partition {@code DEVICE#<deviceId>},
 * and each user's revoke-all marker (why the marker is read after the write:
 * docs/decisions/0007-devices-rekeying-and-revoke-all.md).
 *
 * <p><b>Register a device</b>: TransactWriteItems of two conditional puts (the token and its DEVICE_ADDED entry,
 * each on {@value DynamoDbTable#KEY_IS_NEW}) with the entry's id as ClientRequestToken, so the SDK's retry of a
 * commit whose answer was lost is a no-op; a cancellation names each item's reason.
 *
 * <p><b>Use a device token</b>:
 * <ol>
 *   <li>the domain's consistent GetItem of the token (its user and createdAt);</li>
 *   <li>UpdateItem {@value #SLIDE_DEVICE} on {@value #TOKEN_IS_USABLE}; or, to move a token found under a previous
 *   key to the current one, one attempt's transaction ({@link DynamoDbAttempts}): Delete on that condition and a
 *   Put on {@value DynamoDbTable#KEY_IS_NEW}. A failed condition: refused (a retried re-key finds the token under
 *   its new id and answers used);</li>
 *   <li>a consistent GetItem of the user's revoke-all marker: used only if {@value #NOT_REVOKED}. The marker is
 *   read after the write, never checked inside a transaction, so that its write never conflicts with a use (see
 *   {@link #useDevice}).</li>
 * </ol>
 *
 * <p><b>Revoke all devices</b>:
 * <ol>
 *   <li>UpdateItem {@value #MARK_REVOKED} of the marker on {@value #MARKER_IS_EARLIER}; a failed condition means a
 *   marker as late or later is there already;</li>
 *   <li>Query GSI1 on the user's devices, then BatchWriteItem deletes; a token the index does not show yet is
 *   refused by the marker written first.</li>
 * </ol>
 *
 * <p><b>Revoke one device</b>: a consistent Query of its partition on {@value #DEVICE_TOKENS} (filter
 * {@value #OF_USER}), BatchWriteItem deletes, read again until empty (at most {@value #MAX_REVOKE_ROUNDS} rounds).
 * <b>List devices</b>: Query GSI1 on the user's devices, filtered {@value DynamoDbTable#NOT_EXPIRED} because TTL
 * deletes late.
 */
final class DynamoDbDevices implements DeviceRepository {

    static final String SLIDE_DEVICE = "SET #lastActiveAt = :now, #ttl = :newTtl";
    /** createdAt is fixed-width ISO text, so comparing it as text compares the instants. */
    static final String TOKEN_IS_USABLE = "attribute_exists(PK) AND #ttl > :nowSeconds AND #createdAt > :notCreatedBefore";
    static final String NOT_REVOKED = "attribute_not_exists(#revokedBefore) OR #revokedBefore < :createdAt";
    static final String MARK_REVOKED = "SET #revokedBefore = :revokedBefore, #userId = :userId, #ttl = :ttl";
    static final String MARKER_IS_EARLIER = "attribute_not_exists(#revokedBefore) OR #revokedBefore < :revokedBefore";
    static final String DEVICE_TOKENS = "PK = :pk";
    static final String OF_USER = "#userId = :userId";

    /** How often a single-device revoke reads the device's partition again after deleting what it found. */
    private static final int MAX_REVOKE_ROUNDS = 4;
    private final DynamoDbTable table;

    DynamoDbDevices(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        TransactWriteItemsRequest request = registerDeviceRequest(token, deviceAdded);
        try {
            table.capacity.record(AccessPattern.REGISTER_DEVICE, WRITE,
                    TransactionConflicts.settled(table.client, request).consumedCapacity());
        } catch (TransactionCanceledException e) {
            table.capacity.recordFailedWrite(AccessPattern.REGISTER_DEVICE, request.transactItems().size());
            throw new StoreException("device registration was cancelled and nothing was written: "
                    + describeCancellation(request, e.cancellationReasons()), e);
        } catch (SdkException e) {
            throw table.failure("register a device (TransactWriteItems; nothing was written)", e);
        }
    }

    /** The one transaction of a registration: the token and its audit entry, each only if its key is new. */
    TransactWriteItemsRequest registerDeviceRequest(DeviceToken token, AuditEntry deviceAdded) {
        return TransactWriteItemsRequest.builder()
                .transactItems(
                        table.conditionalPut(DeviceItems.deviceItem(token)),
                        table.conditionalPut(table.auditItem(deviceAdded)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                // The SDK may retry after a commit whose answer was lost; the token makes that retry a no-op
                // instead of a condition failure that would report "nothing was written" for a written device.
                .clientRequestToken(deviceAdded.entryId())
                .build();
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        return table.getItem(TableKeys.deviceToken(deviceId, tokenId), AccessPattern.USE_DEVICE)
                .map(DeviceItems::device);
    }

    /**
     * A device's use writes the token and then reads the user's revoke-all marker, consistently; it does not
     * ConditionCheck the marker in a transaction. That check held the marker for the transaction's duration, so a
     * table.client that kept using a stolen secret could make every revoke-all's marker write fail with
     * TransactionConflictException (a 503). Now the marker is never in a transaction and its write never
     * conflicts; the order keeps revoke-all's promise: a use whose read misses the marker read before the marker
     * was written (it is ordered before that revoke-all), and every use that starts after revoke-all answered reads
     * the marker and is refused. A refused use may have slid its token: harmless, revoke-all deletes it and the
     * marker refuses it until then.
     */
    @Override
    public UseOutcome useDevice(DeviceUse use) {
        Optional<DeviceToken> written = use.rekeyTo().isPresent() ? rekeyDevice(use) : slideDevice(use);
        if (written.isEmpty()) {
            return new UseOutcome.Refused();
        }
        DeviceToken token = use.token();
        Optional<Instant> revokedBefore = table.getItem(TableKeys.devicesRevoked(token.userId()),
                AccessPattern.USE_DEVICE).map(DeviceItems::revokedBefore);
        // NOT_REVOKED: the token was created after the marker's instant (compared as the stored text is).
        if (revokedBefore.filter(before -> DeviceItems.createdAtText(token)
                .compareTo(Timestamps.format(before)) <= 0).isPresent()) {
            return new UseOutcome.Refused();
        }
        return new UseOutcome.Used(written.get());
    }

    /** UpdateItem {@value #SLIDE_DEVICE} on {@value #TOKEN_IS_USABLE}: the slid token, or empty if not usable. */
    private Optional<DeviceToken> slideDevice(DeviceUse use) {
        DeviceToken token = use.token();
        Map<String, String> names = new HashMap<>(deviceConditionNames());
        names.put("#lastActiveAt", ItemAttributes.LAST_ACTIVE_AT);
        Map<String, AttributeValue> values = new HashMap<>(deviceConditionValues(use));
        values.put(":now", s(Timestamps.format(use.now())));
        values.put(":newTtl", n(use.newExpiresAt().getEpochSecond()));
        TableKeys.PrimaryKey key = TableKeys.deviceToken(token.deviceId(), token.tokenId());
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName).key(keyOf(key))
                .updateExpression(SLIDE_DEVICE)
                .conditionExpression(TOKEN_IS_USABLE)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        try {
            table.capacity.record(AccessPattern.USE_DEVICE, WRITE,
                    TransactionConflicts.retryingConflicts(() -> table.client.updateItem(request)).consumedCapacity());
            return Optional.of(new DeviceToken(token.deviceId(), token.tokenId(), token.userId(), token.deviceType(),
                    token.deviceName(), token.pushToken(), use.now(), token.ipAddress(), token.userAgent(),
                    token.createdAt(), use.newExpiresAt()));
        } catch (ConditionalCheckFailedException e) {
            table.capacity.recordFailedWrite(AccessPattern.USE_DEVICE, 1);
            return Optional.empty();
        } catch (SdkException e) {
            throw table.failure("use a device token", e);
        }
    }

    /**
     * The token moved to its current-key tokenId in one attempt's transaction ({@link DynamoDbAttempts}): the
     * moved token, or empty if not usable.
     */
    private Optional<DeviceToken> rekeyDevice(DeviceUse use) {
        return DynamoDbAttempts.run(table, rekeyWrite(use)) instanceof DynamoDbAttempts.Outcome.Written written
                ? Optional.of(written.shown().map(DeviceItems::device).orElseGet(() -> movedToken(use)))
                : Optional.empty();
    }

    private static DeviceToken movedToken(DeviceUse use) {
        DeviceToken token = use.token();
        return new DeviceToken(token.deviceId(), use.rekeyTo().orElseThrow(), token.userId(), token.deviceType(),
                token.deviceName(), token.pushToken(), use.now(), token.ipAddress(), token.userAgent(),
                token.createdAt(), use.newExpiresAt());
    }

    /**
     * The re-key's transaction: the conditioned Delete on {@value #TOKEN_IS_USABLE} and the moved token's Put on
     * {@value DynamoDbTable#KEY_IS_NEW}, nothing riding with them. The moved token shows the write: a retry of this
     * very re-key finds the token there, with its createdAt. A conflict is sent again without a read.
     */
    private DynamoDbAttempts.Write rekeyWrite(DeviceUse use) {
        DeviceToken token = use.token();
        TableKeys.PrimaryKey key = TableKeys.deviceToken(token.deviceId(), token.tokenId());
        TransactWriteItem delete = TransactWriteItem.builder().delete(Delete.builder()
                .tableName(table.tableName).key(keyOf(key))
                .conditionExpression(TOKEN_IS_USABLE)
                .expressionAttributeNames(deviceConditionNames())
                .expressionAttributeValues(deviceConditionValues(use))
                .build()).build();
        DynamoDbAttempts.Mark moved = new DynamoDbAttempts.Mark(
                TableKeys.deviceToken(token.deviceId(), use.rekeyTo().orElseThrow()), false,
                item -> DeviceItems.device(item).createdAt().equals(token.createdAt()), Optional.empty());
        return new DynamoDbAttempts.Write(AccessPattern.USE_DEVICE,
                new DynamoDbAttempts.Naming("use a device token", "device token's use", "", StoreException.Kind.BUSY),
                use.attemptId(), List.of(delete, table.conditionalPut(DeviceItems.deviceItem(movedToken(use)))),
                List.of(), Optional.empty(), Optional.empty(), moved);
    }

    private static Map<String, String> deviceConditionNames() {
        return Map.of("#ttl", ItemAttributes.TTL, "#createdAt", ItemAttributes.CREATED_AT);
    }

    private static Map<String, AttributeValue> deviceConditionValues(DeviceUse use) {
        return Map.of(":nowSeconds", n(use.now().getEpochSecond()),
                ":notCreatedBefore", s(Timestamps.format(use.notCreatedBefore())));
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        return table.getItem(TableKeys.devicesRevoked(userId), AccessPattern.LIST_DEVICES)
                .map(DeviceItems::revokedBefore);
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        Map<String, AttributeValue> values = boundAsValues(DeviceItems.revocationItem(userId, revokedBefore, expiresAt));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(TableKeys.devicesRevoked(userId)))
                .updateExpression(MARK_REVOKED)
                .conditionExpression(MARKER_IS_EARLIER)
                .expressionAttributeNames(Map.of("#revokedBefore", ItemAttributes.REVOKED_BEFORE,
                        "#userId", ItemAttributes.USER_ID, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(values)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        // A failed condition: a marker as late or later is there already (a concurrent revoke-all, or a retry).
        table.updateUnlessConditionFails(request, AccessPattern.REVOKE_DEVICES, "mark a user's devices revoked");
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return table.queryIndexPrefix(TableKeys.user(userId), TableKeys.devicesPrefix(), Optional.of(now),
                AccessPattern.LIST_DEVICES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(DeviceItems::device).toList();
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        if (deviceId.isPresent()) {
            return deleteDeviceTokens(userId, deviceId.get());
        }
        // Revoke-all: the index finds what to delete; the marker written before (markDevicesRevoked) refuses
        // every token the index does not show yet.
        List<Map<String, AttributeValue>> items = table.queryIndexPrefix(TableKeys.user(userId),
                TableKeys.devicesPrefix(), Optional.empty(), AccessPattern.REVOKE_DEVICES);
        table.deleteAll(items, AccessPattern.REVOKE_DEVICES);
        return items.stream().map(DynamoDbItems::fromAttributeValues).map(DeviceItems::device).toList();
    }

    /**
     * One device's tokens share the partition {@code DEVICE#<deviceId>}: a consistent Query there sees a token
     * registered a moment before, which GSI1 may not. The partition is read again after the deletes, until it
     * is empty, so a token a concurrent use moved to its current-key id meanwhile is deleted too.
     */
    private List<DeviceToken> deleteDeviceTokens(String userId, String deviceId) {
        QueryRequest request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression(DEVICE_TOKENS)
                .filterExpression(OF_USER)
                .expressionAttributeNames(Map.of("#userId", ItemAttributes.USER_ID))
                .expressionAttributeValues(Map.of(":pk", s(TableKeys.devicePartition(deviceId)),
                        ":userId", s(userId)))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        List<DeviceToken> deleted = new ArrayList<>();
        for (int round = 0; round < MAX_REVOKE_ROUNDS; round++) {
            List<Map<String, AttributeValue>> items =
                    table.query(request, AccessPattern.REVOKE_DEVICES, Integer.MAX_VALUE);
            if (items.isEmpty()) {
                break;
            }
            table.deleteAll(items, AccessPattern.REVOKE_DEVICES);
            items.stream().map(DynamoDbItems::fromAttributeValues).map(DeviceItems::device).forEach(deleted::add);
        }
        return deleted;
    }
}

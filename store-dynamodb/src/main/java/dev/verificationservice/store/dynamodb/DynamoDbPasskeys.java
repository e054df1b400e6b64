package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyUse;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.PasskeyItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * Passkeys on DynamoDB: items {@code PASSKEYCHALLENGE#<challenge>}, {@code USER#<userId>} / {@code PASSKEYUSER}
 * and {@code PASSKEY#<credentialId>}, each its own partition but the user's.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>challenge: PutItem on KEY_IS_NEW (a key taken is this write's own earlier send: 32 random bytes);</li>
 *   <li>user handle: one UpdateItem keeping the stored handle ({@code if_not_exists}), else storing the new one;</li>
 *   <li>register: the challenge, the credential id and the user's item read in one BatchGetItem, then one attempt's
 *   transaction ({@link DynamoDbAttempts})
 *   of the challenge stamped on {@link #IS_OPEN}, the passkey's Put on KEY_IS_NEW and the user's ids on the ids read
 *   ({@link #IDS_ARE}), with PASSKEY_ADDED; refused, the reason is read again (the ids moved: once more);</li>
 *   <li>accept an assertion: one attempt's transaction of the challenge stamped on {@link #IS_OPEN} and the
 *   passkey's count on {@link #COUNT_IS}, with PASSKEY_VERIFIED and the give-back;</li>
 *   <li>find: consistent GetItem of a passkey; a user's: the user's item, then one BatchGetItem of the passkeys it
 *   names;</li>
 *   <li>revoke: the passkeys' BatchWriteItem deletes, then the user's ids Updated.</li>
 * </ul>
 */
final class DynamoDbPasskeys implements PasskeyRepository {

    static final String IS_OPEN = "attribute_exists(PK) AND attribute_not_exists(#consumedBy) AND #ttl > :nowSeconds";
    static final String COUNT_IS = "#userId = :userId AND #signCount = :expected";
    static final String IDS_ARE = "#credentialIds = :seen";
    private static final int REGISTER_TRIES = 3;

    private final DynamoDbTable table;

    DynamoDbPasskeys(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public void insertChallenge(PasskeyChallenge challenge) {
        TableKeys.PrimaryKey key = TableKeys.passkeyChallenge(challenge.challenge());
        Optional<Map<String, Object>> taken = table.putIfNew(PasskeyItems.challengeItem(challenge), key,
                AccessPattern.PASSKEY_CHALLENGE);
        if (taken.isPresent() && !taken.get().equals(PasskeyItems.challengeItem(challenge))) {
            throw new StoreException("passkey challenge refused: its key exists already; nothing was written");
        }
    }

    @Override
    public Optional<PasskeyChallenge> findChallenge(String challenge) {
        return table.getItem(TableKeys.passkeyChallenge(challenge), AccessPattern.PASSKEY_CHALLENGE)
                .map(PasskeyItems::challenge);
    }

    @Override
    public String userHandle(String userId, String candidate) {
        // One UpdateItem that keeps a stored handle and stores the candidate otherwise: no read before it, so the
        // registration options are two round trips for a new user too; a retry of it finds its own handle.
        UpdateItemRequest request = UpdateItemRequest.builder().tableName(table.tableName)
                .key(keyOf(TableKeys.passkeyUser(userId)))
                .updateExpression("SET #userHandle = if_not_exists(#userHandle, :candidate), "
                        + "#credentialIds = if_not_exists(#credentialIds, :none)")
                .expressionAttributeNames(Map.of("#userHandle", ItemAttributes.USER_HANDLE, "#credentialIds",
                        ItemAttributes.CREDENTIAL_IDS))
                .expressionAttributeValues(Map.of(":candidate", s(candidate), ":none", s("")))
                .returnValues(ReturnValue.ALL_NEW)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build();
        UpdateItemResponse response = table.call("store a user handle",
                () -> TransactionConflicts.retryingConflicts(() -> table.client.updateItem(request)));
        table.capacity.record(AccessPattern.MANAGE_PASSKEYS, ConsumedCapacityRecorder.Kind.WRITE,
                response.consumedCapacity());
        return PasskeyItems.userHandle(DynamoDbItems.fromAttributeValues(response.attributes()));
    }

    @Override
    public List<Passkey> findPasskeys(String userId) {
        // The user's item names them; one BatchGetItem reads them all (at most the cap, under its 100 keys).
        List<TableKeys.PrimaryKey> keys = userIds(userId).stream().map(TableKeys::passkey).toList();
        if (keys.isEmpty()) {
            return List.of();
        }
        List<Passkey> found = new ArrayList<>();
        table.getItems(keys, AccessPattern.FIND_PASSKEYS).values().stream().map(PasskeyItems::passkey)
                .filter(passkey -> passkey.userId().equals(userId)).forEach(found::add);
        found.sort(Comparator.comparing(Passkey::credentialId));
        return found;
    }

    private List<String> userIds(String userId) {
        return table.getItem(TableKeys.passkeyUser(userId), AccessPattern.FIND_PASSKEYS)
                .map(PasskeyItems::credentialIds).orElse(List.of());
    }

    @Override
    public Optional<Passkey> findPasskey(String credentialId) {
        return table.getItem(TableKeys.passkey(credentialId), AccessPattern.FIND_PASSKEYS).map(PasskeyItems::passkey);
    }

    @Override
    public Registered register(String challenge, String attemptId, Instant now, Passkey passkey, AuditEntry added,
                               int maxPasskeys) {
        TableKeys.PrimaryKey challengeKey = TableKeys.passkeyChallenge(challenge);
        for (int round = 0; round < REGISTER_TRIES; round++) {
            // The challenge, the credential id and the user's item in one BatchGetItem: one round trip.
            TableKeys.PrimaryKey userKey = TableKeys.passkeyUser(passkey.userId());
            Map<TableKeys.PrimaryKey, Map<String, Object>> read = table.getItems(List.of(challengeKey,
                    TableKeys.passkey(passkey.credentialId()), userKey), AccessPattern.REGISTER_PASSKEY);
            Optional<PasskeyChallenge> stored = Optional.ofNullable(read.get(challengeKey))
                    .map(PasskeyItems::challenge);
            if (stored.isPresent() && stored.get().consumedBy().equals(Optional.of(attemptId))) {
                return Registered.STORED;
            }
            if (stored.isEmpty() || !stored.get().isOpenAt(now) || !stored.get().isRegistrationOf(passkey.userId())) {
                return Registered.CHALLENGE_NOT_OPEN;
            }
            if (read.containsKey(TableKeys.passkey(passkey.credentialId()))) {
                return Registered.CREDENTIAL_EXISTS;
            }
            Optional<Map<String, Object>> user = Optional.ofNullable(read.get(userKey));
            List<String> ids = new ArrayList<>(user.map(PasskeyItems::credentialIds).orElse(List.of()));
            if (ids.size() >= maxPasskeys) {
                return Registered.CAP_REACHED;
            }
            ids.add(passkey.credentialId());
            String handle = stored.get().userHandle().orElseThrow();
            Map<String, Object> userItem = PasskeyItems.userItem(passkey.userId(),
                    user.map(PasskeyItems::userHandle).orElse(handle), ids);
            Put.Builder userPut = Put.builder().tableName(table.tableName)
                    .item(DynamoDbItems.toAttributeValues(userItem));
            if (user.isPresent()) {
                userPut.conditionExpression(IDS_ARE)
                        .expressionAttributeNames(Map.of("#credentialIds", ItemAttributes.CREDENTIAL_IDS))
                        .expressionAttributeValues(Map.of(":seen", s(String.join(" ",
                                PasskeyItems.credentialIds(user.get())))));
            } else {
                userPut.conditionExpression(DynamoDbTable.KEY_IS_NEW);
            }
            DynamoDbAttempts.Outcome outcome = DynamoDbAttempts.run(table, new DynamoDbAttempts.Write(
                    AccessPattern.REGISTER_PASSKEY, DynamoDbAttempts.Naming.of("passkey registration"), attemptId,
                    List.of(consume(challengeKey, attemptId, now), table.conditionalPut(PasskeyItems.passkeyItem(passkey.withUserHandle(handle))),
                            TransactWriteItem.builder().put(userPut.build()).build()),
                    List.of(table.conditionalPut(table.auditItem(added))), Optional.empty(), Optional.empty(),
                    stamped(challengeKey, attemptId)));
            if (outcome instanceof DynamoDbAttempts.Outcome.Written) {
                return Registered.STORED;
            }
            // Refused: the challenge used, the credential taken, or the user's ids moved; read again and decide.
        }
        throw new StoreException("the passkey registration kept meeting concurrent registrations; nothing was "
                + "written, retry");
    }

    @Override
    public boolean acceptAssertion(PasskeyUse use) {
        TableKeys.PrimaryKey challengeKey = TableKeys.passkeyChallenge(use.challenge());
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":userId", s(use.userId()));
        values.put(":expected", n(use.expectedSignCount()));
        values.put(":count", n(use.newSignCount()));
        values.put(":backedUp", bool(use.backedUp()));
        values.put(":now", s(Timestamps.format(use.now())));
        Update.Builder count = Update.builder().tableName(table.tableName)
                .key(keyOf(TableKeys.passkey(use.credentialId())))
                .updateExpression("SET #signCount = :count, #backedUp = :backedUp, #lastUsedAt = :now")
                .conditionExpression(COUNT_IS)
                .expressionAttributeNames(Map.of("#userId", ItemAttributes.USER_ID, "#signCount",
                        ItemAttributes.SIGN_COUNT, "#backedUp", ItemAttributes.BACKED_UP, "#lastUsedAt",
                        ItemAttributes.LAST_USED_AT))
                .expressionAttributeValues(values);
        return DynamoDbAttempts.run(table, new DynamoDbAttempts.Write(AccessPattern.ACCEPT_PASSKEY,
                DynamoDbAttempts.Naming.of("passkey assertion"), use.attemptId(),
                List.of(consume(challengeKey, use.attemptId(), use.now()),
                        TransactWriteItem.builder().update(count.build()).build()),
                List.of(table.conditionalPut(table.auditItem(use.entry()))), use.placeToGiveBack(), Optional.empty(),
                stamped(challengeKey, use.attemptId())))
                .answer(() -> true, ignored -> false);
    }

    /** The challenge stamped with the attempt on {@link #IS_OPEN}, returning it as it is when that fails. */
    private TransactWriteItem consume(TableKeys.PrimaryKey key, String attemptId, Instant now) {
        return DynamoDbAttempts.conditionedUpdate(table, key, Update.builder()
                .updateExpression("SET #consumedBy = :attemptId")
                .conditionExpression(IS_OPEN)
                .expressionAttributeNames(Map.of("#consumedBy", ItemAttributes.CONSUMED_BY, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(":attemptId", s(attemptId), ":nowSeconds",
                        n(now.getEpochSecond()))));
    }

    /** The challenge shows the attempt's write; after a conflict, a challenge used or gone is past its chance. */
    private static DynamoDbAttempts.Mark stamped(TableKeys.PrimaryKey key, String attemptId) {
        return DynamoDbAttempts.Mark.stamped(key, attemptId, ItemAttributes.CONSUMED_BY,
                current -> current.isEmpty() || current.get().containsKey(ItemAttributes.CONSUMED_BY));
    }

    @Override
    public boolean rename(String userId, String credentialId, String label) {
        TableKeys.PrimaryKey key = TableKeys.passkey(credentialId);
        return table.conditionalUpdate(UpdateItemRequest.builder().tableName(table.tableName).key(keyOf(key))
                .updateExpression("SET #label = :label")
                .conditionExpression("#userId = :userId")
                .expressionAttributeNames(Map.of("#label", ItemAttributes.LABEL, "#userId", ItemAttributes.USER_ID))
                .expressionAttributeValues(Map.of(":label", s(label), ":userId", s(userId)))
                .build(), key, AccessPattern.MANAGE_PASSKEYS, ignored -> true, ignored -> false);
    }

    @Override
    public List<Passkey> delete(String userId, Optional<String> credentialId) {
        List<Passkey> doomed = findPasskeys(userId).stream()
                .filter(passkey -> credentialId.map(passkey.credentialId()::equals).orElse(true)).toList();
        if (doomed.isEmpty()) {
            return doomed;
        }
        // The passkeys first: a user item naming a passkey that is gone is read past, never the other way round.
        table.deleteAll(doomed.stream().map(passkey -> keyOf(TableKeys.passkey(passkey.credentialId()))).toList(),
                AccessPattern.MANAGE_PASSKEYS);
        List<String> left = new ArrayList<>(userIds(userId));
        doomed.forEach(passkey -> left.remove(passkey.credentialId()));
        table.updateUnlessConditionFails(UpdateItemRequest.builder().tableName(table.tableName)
                .key(keyOf(TableKeys.passkeyUser(userId)))
                .updateExpression("SET #credentialIds = :ids")
                .conditionExpression("attribute_exists(PK)")
                .expressionAttributeNames(Map.of("#credentialIds", ItemAttributes.CREDENTIAL_IDS))
                .expressionAttributeValues(Map.of(":ids", s(String.join(" ", left))))
                .build(), AccessPattern.MANAGE_PASSKEYS, "revoke passkeys");
        return doomed;
    }
}

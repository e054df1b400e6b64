package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.READ;
import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.devices.UseOutcome;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The single table on Amazon DynamoDB, or any endpoint that speaks its API.
 *
 * <p><b>Algorithm.</b> Every access pattern is one request (or one paginated query followed by batched
 * deletes), and every write that depends on validity carries its condition. Every write is also correct when
 * it runs twice: the SDK retries a request whose answer was lost, so each conditional write carries an
 * attempt id that the store recognises when its own earlier write makes the condition fail.
 * <ul>
 *   <li>new code: PutItem with {@value #KEY_IS_NEW} and {@code issuedBy = <issueId>},
 *   {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}. {@code ConditionalCheckFailed} with this
 *   {@code issuedBy} is the retry of this very insert (stored); with another, a key collision (the domain
 *   generates another code);</li>
 *   <li>new audit entry: PutItem with {@value #KEY_IS_NEW}; a failed condition on an item equal to this entry
 *   is this entry's own retry (written); otherwise the domain picks another entry id;</li>
 *   <li>consume a code: one TransactWriteItems: Update {@value #MARK_USED} on {@value #CODE_IS_CONSUMABLE}
 *   and the context's ({@value #AND_SAME_CONTEXT}, or {@value #AND_NO_CONTEXT}) (ALL_OLD on failure), Put of the CODE_VERIFIED entry on {@value #KEY_IS_NEW}, and for a NUMERIC code
 *   Update {@value #GIVE_PLACE_BACK} on {@value #PLACE_IS_HELD}. The attempt id is the ClientRequestToken,
 *   so DynamoDB answers the SDK's retry of a committed transaction "done" without applying it again. Outcomes:
 *   committed: consumed; the code's condition failed and its {@code consumedBy} is this attempt: consumed
 *   (this attempt's transaction was applied before); failed otherwise: rejected, and the old item says why
 *   (USED, EXPIRED, NOT_FOUND); only the give-back's condition failed (the counter was reset meanwhile): the
 *   transaction is sent again without it; TransactionConflict (another transaction on an item at that
 *   moment): sent again after a pause, up to {@value #MAX_CONSUME_ATTEMPTS} times; anything else: a
 *   StoreException, nothing written. Each different request of one consume has a token of its own, and a
 *   request whose outcome is in doubt is sent again under its token until it is certain (see
 *   {@link TransactionConflicts}). An engine that does not return the old item is read once with a consistent
 *   GetItem;</li>
 *   <li>use a device token: a consistent GetItem of the token (its user and createdAt), then UpdateItem
 *   {@value #SLIDE_DEVICE} on {@value #TOKEN_IS_USABLE} (or, to move a token found under a previous key to the
 *   current one, one TransactWriteItems: Delete on that condition and a Put on {@value #KEY_IS_NEW}), then a
 *   consistent GetItem of the user's revoke-all marker: used only if {@value #NOT_REVOKED}. A failed condition:
 *   refused (a retried re-key finds the token under its new id and answers used). The marker is read after the
 *   write, never checked inside a transaction, so that its write never conflicts with a use (see
 *   {@link #useDevice});</li>
 *   <li>revoke-all marker: UpdateItem {@value #MARK_REVOKED} on {@value #MARKER_IS_EARLIER}, before the deletes;</li>
 *   <li>register a device: TransactWriteItems of two conditional puts (the token and its DEVICE_ADDED
 *   entry) with a ClientRequestToken; a cancellation names each item's reason;</li>
 *   <li>take a rate-limit place: UpdateItem {@value #TAKE_PLACE} on {@value #PLACE_IS_FREE}, returning
 *   {@code UPDATED_NEW}. DynamoDB serialises updates of one item, so every attempt gets a distinct place. A
 *   failed condition whose old item holds this attempt's mark is a retry: that place. One without the mark
 *   means the counter is at the ceiling: refused, nothing counted. Give a place back: UpdateItem
 *   {@value #GIVE_PLACE_BACK} on {@value #PLACE_IS_HELD}; a failed condition means it was given back already.
 *   Keep a place for good (the SMS budget's, once the SMS went out): UpdateItem {@value #KEEP_PLACE} on
 *   {@value #PLACE_IS_HELD}, so the counter item holds marks only for places whose outcome is open;</li>
 *   <li>a place without an attempt id (the domain takes none such; the SMS budget's places are named too):
 *   UpdateItem {@value #TAKE_UNNAMED_PLACE} on {@value #BELOW_CEILING}: exact under concurrency, but a retry
 *   may count twice;</li>
 *   <li>claim a cooldown: UpdateItem {@value #CLAIM_COOLDOWN} on {@value #COOLDOWN_IS_FREE}; a failed
 *   condition's old item says when the running cooldown ends. Release it (its request was refused after the
 *   claim): DeleteItem on {@value #COOLDOWN_IS_CLAIMED_BY_ME}; a failed condition means released already or
 *   claimed by another attempt since;</li>
 *   <li>Idempotency-Key: PutItem on {@value #IDEMPOTENCY_KEY_IS_FREE} claims it (ALL_OLD on failure: the
 *   holder, whose request digest and answer decide replay, refusal or waiting); UpdateItem {@value #STORE_ANSWER}
 *   on {@value #CLAIM_IS_HELD} stores the sealed answer; DeleteItem on {@value #CLAIM_IS_PENDING} releases it;</li>
 *   <li>lift a rate limit: Query the counter's partition (consistent), then BatchWriteItem deletes;</li>
 *   <li>keep only the newest code: UpdateItem of the user's current-code marker {@value #MAKE_CURRENT} on
 *   {@value #IS_NOT_OLDER_THAN_CURRENT} ({@code UPDATED_OLD}), then DeleteItem of the code it named before; a
 *   failed condition means a newer code is current: this one is deleted. The consume's transaction ConditionChecks the
 *   marker, {@value #IS_CURRENT}, so a superseded code is never used, whatever GSI1 shows;</li>
 *   <li>invalidate codes: UpdateItem {@value #CLEAR_CURRENT} of the marker on {@value #HAS_CURRENT} (ALL_OLD),
 *   DeleteItem of the code it named, then Query GSI1 for the others (tidiness) and BatchWriteItem deletes;</li>
 *   <li>revoke one device: consistent Query of its partition {@code DEVICE#<deviceId>} (filter {@value #OF_USER}),
 *   BatchWriteItem deletes, read again until empty; revoke all: Query GSI1, then deletes (the marker written
 *   first refuses what the index does not show yet). Every query is followed to its last page, deletes go in
 *   groups of 25, retrying unprocessed items with backoff (deleting twice is harmless);</li>
 *   <li>every Query filters {@value #NOT_EXPIRED} (audit: {@value #RETAINED}) because TTL deletes late;
 *   GetItem results are returned as stored and the domain compares their ttl with its clock.</li>
 * </ul>
 * Each request asks for {@code ReturnConsumedCapacity=TOTAL}, added up per {@link AccessPattern} in the
 * {@link ConsumedCapacityRecorder}.
 *
 * <p><b>Failures.</b> Any {@code SdkException} (throttling, a 5xx, a timeout, a refused or reset
 * connection, retries exhausted) becomes a {@link StoreException}; how long the SDK may try is set on the
 * client by whoever builds it (the server bounds every call and every attempt).
 *
 * <p>GSI1 is eventually consistent, as DynamoDB global indexes are (ConsistentRead is refused on it): no rule
 * reads it. It lists (devices, live codes) and finds candidates to delete for tidiness; what a rule must see
 * is on the table, read consistently or checked in a condition (the current-code marker, the revoke-all marker,
 * one device's partition). The design notes list every read and why it may or may not lag.
 */
public final class DynamoDbVerificationStore implements VerificationStore {

    // Expressions: every one the store sends, named once.
    static final String KEY_IS_NEW = "attribute_not_exists(PK)";
    static final String MARK_USED = "SET #isUsed = :true, #consumedBy = :attemptId";
    static final String CODE_IS_CONSUMABLE = "attribute_exists(PK) AND #isUsed = :false AND #ttl > :now"
            + " AND #userId = :userId AND #codeType = :codeType";
    static final String AND_SAME_CONTEXT = " AND #contextDigest = :contextDigest";
    static final String AND_NO_CONTEXT = " AND attribute_not_exists(#contextDigest)";
    static final String SLIDE_DEVICE = "SET #lastActiveAt = :now, #ttl = :newTtl";
    /** createdAt is fixed-width ISO text, so comparing it as text compares the instants. */
    static final String TOKEN_IS_USABLE = "attribute_exists(PK) AND #ttl > :nowSeconds AND #createdAt > :notCreatedBefore";
    static final String NOT_REVOKED = "attribute_not_exists(#revokedBefore) OR #revokedBefore < :createdAt";
    static final String MARK_REVOKED = "SET #revokedBefore = :revokedBefore, #userId = :userId, #ttl = :ttl";
    static final String MARKER_IS_EARLIER = "attribute_not_exists(#revokedBefore) OR #revokedBefore < :revokedBefore";
    /** The count and the attempt's mark get the same new value: the old count plus one (operands read the old item). */
    static final String TAKE_PLACE = "SET #count = if_not_exists(#count, :zero) + :one,"
            + " #place = if_not_exists(#count, :zero) + :one,"
            + " #userId = :userId, #action = :action, #windowStart = :windowStart, #ttl = :ttl";
    static final String PLACE_IS_FREE = "attribute_not_exists(#place) AND (attribute_not_exists(#count) OR #count < :ceiling)";
    /** A place without an attempt id: counted without a mark, so a retry may count twice. */
    static final String TAKE_UNNAMED_PLACE = "SET #count = if_not_exists(#count, :zero) + :one,"
            + " #userId = :userId, #action = :action, #windowStart = :windowStart, #ttl = :ttl";
    static final String BELOW_CEILING = "attribute_not_exists(#count) OR #count < :ceiling";
    static final String CLAIM_COOLDOWN = "SET #busyUntil = :busyUntil, #claimedBy = :attemptId, #userId = :userId,"
            + " #action = :action, #ttl = :ttl";
    static final String COOLDOWN_IS_FREE = "attribute_not_exists(PK) OR #busyUntil <= :now OR #claimedBy = :attemptId";
    static final String COOLDOWN_IS_CLAIMED_BY_ME = "#claimedBy = :attemptId";
    static final String COUNTER_RANGE = "PK = :pk AND SK BETWEEN :from AND :to";
    static final String GIVE_PLACE_BACK = "SET #count = #count - :one REMOVE #place";
    /** A place kept for good: the count stays, the mark goes (so the item holds marks only for open outcomes). */
    static final String KEEP_PLACE = "REMOVE #place";
    static final String PLACE_IS_HELD = "attribute_exists(#place)";
    /** Free: no item; an expired one; this very claim (a retry); or a claim pending since before :staleBefore. */
    static final String IDEMPOTENCY_KEY_IS_FREE = "attribute_not_exists(PK) OR #ttl <= :now OR #claimedBy = :claimedBy"
            + " OR (attribute_not_exists(#answer) AND #claimedAt < :staleBefore)";
    static final String STORE_ANSWER = "SET #answerStatus = :answerStatus, #answer = :answer";
    static final String CLAIM_IS_HELD = "#claimedBy = :claimedBy";
    static final String CLAIM_IS_PENDING = "#claimedBy = :claimedBy AND attribute_not_exists(#answer)";
    static final String GSI1_BEGINS_WITH = "GSI1PK = :pk AND begins_with(GSI1SK, :prefix)";
    /** The code named by the user's current-code marker; the values are the marker item's, bound as :<name>. */
    static final String MAKE_CURRENT = "SET #current = :current, #currentAt = :currentAt,"
            + " #currentFormat = :currentFormat, #userId = :userId, #ttl = :ttl";
    /** VerificationCode.mayReplace as a condition: createdAt is fixed-width ISO text; a tie goes to the later writer. */
    static final String IS_NOT_OLDER_THAN_CURRENT = "attribute_not_exists(#currentAt) OR #currentAt <= :currentAt";
    /** Invalidation: no code is current any more; currentAt stays, so an older code in flight cannot take over. */
    static final String CLEAR_CURRENT = "REMOVE #current, #currentFormat";
    static final String HAS_CURRENT = "attribute_exists(#current)";
    static final String AND_CURRENT_FORMAT = " AND #currentFormat = :currentFormat";
    /** No marker: a code stored before markers existed (issue 22), still governed by deletion alone. */
    static final String IS_CURRENT = "attribute_not_exists(PK) OR #current = :digest";
    static final String DEVICE_TOKENS = "PK = :pk";
    static final String OF_USER = "#userId = :userId";
    static final String AUDIT_RANGE = "PK = :pk AND SK BETWEEN :from AND :to";
    static final String COUNTER_WINDOW = "PK = :pk AND SK = :sk";
    static final String COUNTER_PARTITION = "PK = :pk";
    static final String NOT_EXPIRED = "#ttl > :now";
    static final String RETAINED = "attribute_not_exists(#ttl) OR #ttl > :now";

    /** DynamoDB's cancellation reason for an item whose condition failed. */
    static final String CONDITION_FAILED = "ConditionalCheckFailed";
    /** DynamoDB's cancellation reason for an item another transaction was writing at the same moment. */
    static final String TRANSACTION_CONFLICT = "TransactionConflict";
    /** How often a single-device revoke reads the device's partition again after deleting what it found. */
    private static final int MAX_REVOKE_ROUNDS = 4;
    /** How often a consume cancelled by a concurrent transaction on its items is tried (with pauses between). */
    private static final int MAX_CONSUME_ATTEMPTS = TransactionConflicts.MAX_CONFLICT_TRIES;

    /** BatchWriteItem takes at most 25 requests. */
    static final int BATCH_WRITE_LIMIT = 25;
    private static final int MAX_BATCH_ATTEMPTS = 8;
    private static final long BASE_BACKOFF_MILLIS = 50;

    private final DynamoDbClient client;
    private final String tableName;
    private final ConsumedCapacityRecorder capacity;
    private final boolean conditionFailureReturnsItem;

    /**
     * @param conditionFailureReturnsItem true for Amazon DynamoDB, which honours
     *        {@code ReturnValuesOnConditionCheckFailure}; false for an engine that does not (dynalite), where a
     *        failed conditional write is followed by one consistent GetItem to learn why it failed
     */
    public DynamoDbVerificationStore(DynamoDbClient client, String tableName, ConsumedCapacityRecorder capacity,
                                     boolean conditionFailureReturnsItem) {
        this.client = client;
        this.tableName = tableName;
        this.capacity = capacity;
        this.conditionFailureReturnsItem = conditionFailureReturnsItem;
    }

    public DynamoDbVerificationStore(DynamoDbClient client, String tableName) {
        this(client, tableName, new ConsumedCapacityRecorder(), true);
    }

    public ConsumedCapacityRecorder consumedCapacity() {
        return capacity;
    }

    // Codes

    @Override
    public boolean insertCode(VerificationCode code, String issueId) {
        Optional<Map<String, Object>> holder = putIfNew(TableItems.codeItem(code, issueId), TableKeys.code(code.digest()),
                AccessPattern.INSERT_CODE);
        // Written now, or the key is held by this very request: its earlier try was applied and the answer lost.
        return holder.isEmpty() || holder.flatMap(TableItems::issuedBy).filter(issueId::equals).isPresent();
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return getItem(TableKeys.code(digest), AccessPattern.VALIDATE_CODE).map(TableItems::code);
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        TableKeys.PrimaryKey key = TableKeys.code(consumption.digest());
        boolean giveBack = consumption.placeToGiveBack().isPresent();
        for (int attempt = 1; ; attempt++) {
            // Each try is a different request under a token of its own (see TransactionConflicts).
            TransactWriteItemsRequest request = consumeRequest(consumption, giveBack, attempt);
            try {
                capacity.record(AccessPattern.CONSUME_CODE, WRITE,
                        TransactionConflicts.settled(client, request).consumedCapacity());
                return new ConsumeOutcome.Consumed();
            } catch (TransactionCanceledException e) {
                capacity.record(AccessPattern.CONSUME_CODE, WRITE, List.of());
                List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
                String codeReason = reasonCode(reasons, 0);
                if (CONDITION_FAILED.equals(codeReason)) {
                    Optional<Map<String, Object>> current = reasons.get(0).hasItem() && !reasons.get(0).item().isEmpty()
                            ? Optional.of(DynamoDbItems.fromAttributeValues(reasons.get(0).item()))
                            : conditionFailureReturnsItem ? Optional.empty() : getItem(key, AccessPattern.CONSUME_CODE);
                    if (current.flatMap(TableItems::consumedBy).filter(consumption.attemptId()::equals).isPresent()) {
                        // This attempt's transaction was applied before (its answer lost): the code, its audit
                        // entry and the give-back are all there. A retry, not a second use.
                        return new ConsumeOutcome.Consumed();
                    }
                    return new ConsumeOutcome.Rejected(current.map(TableItems::code));
                }
                if (CONDITION_FAILED.equals(reasonCode(reasons, request.transactItems().size() - 1))) {
                    // Another code of the user and type is current, or the codes were invalidated: this one is
                    // as good as deleted, whether or not its deletion has happened yet.
                    return new ConsumeOutcome.Rejected(Optional.empty());
                }
                if (giveBack && CONDITION_FAILED.equals(reasonCode(reasons, 2))) {
                    // The place to give back is gone (the window's counter was reset meanwhile): consume without it.
                    giveBack = false;
                    continue;
                }
                if (reasons.stream().anyMatch(reason -> TRANSACTION_CONFLICT.equals(reason.code()))
                        && attempt < MAX_CONSUME_ATTEMPTS) {
                    // Another transaction was writing one of the items at this moment: nothing was written. Most
                    // often it is another verification of the same code: once that one committed, the code says so
                    // (a consistent read) and this one is over; otherwise the next try, after a pause.
                    Optional<Map<String, Object>> current = getItem(key, AccessPattern.CONSUME_CODE);
                    if (current.flatMap(TableItems::consumedBy).filter(consumption.attemptId()::equals).isPresent()) {
                        return new ConsumeOutcome.Consumed();
                    }
                    if (current.map(TableItems::code).filter(VerificationCode::used).isPresent()) {
                        return new ConsumeOutcome.Rejected(current.map(TableItems::code));
                    }
                    TransactionConflicts.pause(attempt);
                    continue;
                }
                throw new StoreException("the verification was cancelled and nothing was written: "
                        + describeCancellation(request, reasons) + "; retry the verification", e);
            } catch (SdkException e) {
                throw failure("consume a code", e);
            }
        }
    }

    /**
     * The one transaction of a successful verification: the code marked used (and stamped with the attempt id)
     * on the consumable condition, its CODE_VERIFIED entry, and, for a NUMERIC code, the attempt's place in the
     * failure count given back while its mark is there. The ClientRequestToken is the attempt id for the first
     * send and the attempt id with the send's number for each later, different one: the SDK's own retry after a
     * commit whose answer was lost is answered "done" by DynamoDB; a later retry is recognised by
     * {@code consumedBy}.
     */
    TransactWriteItemsRequest consumeRequest(CodeConsumption consumption, boolean giveBack, int send) {
        TableKeys.PrimaryKey key = TableKeys.code(consumption.digest());
        List<TransactWriteItem> items = new ArrayList<>();
        Map<String, String> names = new HashMap<>(Map.of("#isUsed", ItemAttributes.IS_USED, "#ttl", ItemAttributes.TTL,
                "#consumedBy", ItemAttributes.CONSUMED_BY, "#userId", ItemAttributes.USER_ID,
                "#codeType", ItemAttributes.CODE_TYPE, "#contextDigest", ItemAttributes.CONTEXT_DIGEST));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":true", bool(true), ":false", bool(false),
                ":now", n(consumption.now().getEpochSecond()), ":attemptId", s(consumption.attemptId()),
                ":userId", s(consumption.userId()), ":codeType", s(consumption.codeType().name())));
        consumption.contextDigest().ifPresent(digest -> values.put(":contextDigest", s(digest)));
        items.add(TransactWriteItem.builder().update(Update.builder()
                .tableName(tableName)
                .key(keyOf(key))
                .updateExpression(MARK_USED)
                .conditionExpression(CODE_IS_CONSUMABLE
                        + (consumption.contextDigest().isPresent() ? AND_SAME_CONTEXT : AND_NO_CONTEXT))
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        items.add(conditionalPut(TableItems.auditItem(consumption.verified())));
        if (giveBack && consumption.placeToGiveBack().orElseThrow().attemptId().isPresent()) {
            Place place = consumption.placeToGiveBack().orElseThrow();
            items.add(TransactWriteItem.builder().update(Update.builder()
                    .tableName(tableName)
                    .key(keyOf(counterKey(place.window())))
                    .updateExpression(GIVE_PLACE_BACK)
                    .conditionExpression(PLACE_IS_HELD)
                    .expressionAttributeNames(Map.of("#count", ItemAttributes.COUNT,
                            "#place", TableItems.placeAttribute(place.attemptId().get())))
                    .expressionAttributeValues(Map.of(":one", n(1)))
                    .build()).build());
        }
        // Last, so the other items keep their places in the cancellation reasons.
        items.add(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                .tableName(tableName)
                .key(keyOf(TableKeys.currentCode(consumption.userId(), consumption.codeType())))
                .conditionExpression(IS_CURRENT)
                .expressionAttributeNames(Map.of("#current", ItemAttributes.CURRENT))
                .expressionAttributeValues(Map.of(":digest", s(consumption.digest())))
                .build()).build());
        return TransactWriteItemsRequest.builder()
                .transactItems(items)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .clientRequestToken(TransactionConflicts.clientRequestToken(consumption.attemptId(), send))
                .build();
    }

    @Override
    public List<VerificationCode> makeCurrent(VerificationCode code) {
        TableKeys.PrimaryKey marker = TableKeys.currentCode(code.userId(), code.codeType());
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(marker))
                .updateExpression(MAKE_CURRENT)
                .conditionExpression(IS_NOT_OLDER_THAN_CURRENT)
                .expressionAttributeNames(Map.of("#current", ItemAttributes.CURRENT,
                        "#currentAt", ItemAttributes.CURRENT_AT, "#currentFormat", ItemAttributes.CURRENT_FORMAT,
                        "#userId", ItemAttributes.USER_ID, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(boundAsValues(TableItems.currentCodeItem(code)))
                .returnValues(ReturnValue.UPDATED_OLD)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        Optional<String> replaced = conditionalUpdate(request, marker, AccessPattern.KEEP_NEWEST_CODE,
                // Made current: the code it names no longer is.
                old -> TableItems.currentDigest(old).filter(digest -> !digest.equals(code.digest())),
                // Not newer: this code lost, unless the marker names it already (a retry of this very call).
                current -> current.flatMap(TableItems::currentDigest).filter(code.digest()::equals).isPresent()
                        ? Optional.empty() : Optional.of(code.digest()));
        return replaced.flatMap(digest -> deleteCodeReturning(digest, AccessPattern.KEEP_NEWEST_CODE)).stream().toList();
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        TableKeys.PrimaryKey marker = TableKeys.currentCode(userId, codeType);
        UpdateItemRequest.Builder builder = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(marker))
                .updateExpression(CLEAR_CURRENT)
                .conditionExpression(HAS_CURRENT + (format.isPresent() ? AND_CURRENT_FORMAT : ""))
                .expressionAttributeNames(Map.of("#current", ItemAttributes.CURRENT,
                        "#currentFormat", ItemAttributes.CURRENT_FORMAT))
                .returnValues(ReturnValue.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        format.ifPresent(only -> builder.expressionAttributeValues(Map.of(":currentFormat", s(only.name()))));
        UpdateItemRequest request = builder.build();
        // First the marker, on the table itself: from here on no code of the user and type is consumed.
        Optional<String> current = conditionalUpdate(request, marker, AccessPattern.INVALIDATE_CODES,
                TableItems::currentDigest, nothingCurrent -> Optional.empty());
        List<VerificationCode> deleted = new ArrayList<>(current
                .flatMap(digest -> deleteCodeReturning(digest, AccessPattern.INVALIDATE_CODES)).stream().toList());
        // Then, for tidiness, whatever else the index shows: those codes could not be used any more.
        List<Map<String, AttributeValue>> items = queryIndexPrefix(TableKeys.user(userId),
                TableKeys.codesOfTypePrefix(codeType), Optional.empty(), AccessPattern.INVALIDATE_CODES).stream()
                .filter(item -> current.map(digest -> !digest.equals(item.get(ItemAttributes.CODE).s())).orElse(true))
                .filter(item -> format.map(only -> only.name().equals(item.get(ItemAttributes.CODE_FORMAT).s()))
                        .orElse(true))
                .toList();
        deleteAll(items, AccessPattern.INVALIDATE_CODES);
        items.stream().map(DynamoDbItems::fromAttributeValues).map(TableItems::code).forEach(deleted::add);
        return deleted;
    }

    /** DeleteItem of a code by its key, returning what was deleted (nothing if it was gone). */
    private Optional<VerificationCode> deleteCodeReturning(String digest, AccessPattern pattern) {
        // A consume of this code holds it for a moment: the delete is sent again then (TransactionConflicts).
        var response = call("delete a code", () -> TransactionConflicts.retryingConflicts(() -> client.deleteItem(
                request -> request
                        .tableName(tableName)
                        .key(keyOf(TableKeys.code(digest)))
                        .returnValues(ReturnValue.ALL_OLD)
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
        capacity.record(pattern, WRITE, response.consumedCapacity());
        return response.hasAttributes() && !response.attributes().isEmpty()
                ? Optional.of(TableItems.code(DynamoDbItems.fromAttributeValues(response.attributes())))
                : Optional.empty();
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return queryIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType), Optional.empty(),
                AccessPattern.FIND_CODES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::code).toList();
    }

    @Override
    public void deleteCode(String digest) {
        TableKeys.PrimaryKey key = TableKeys.code(digest);
        // A consume of this code holds it for a moment: the delete is sent again then (TransactionConflicts).
        call("delete a code", () -> capacity.record(AccessPattern.DELETE_CODE, WRITE, TransactionConflicts.retryingConflicts(
                () -> client.deleteItem(request -> request.tableName(tableName).key(keyOf(key))
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))).consumedCapacity()));
    }

    // Devices

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        TransactWriteItemsRequest request = registerDeviceRequest(token, deviceAdded);
        try {
            capacity.record(AccessPattern.REGISTER_DEVICE, WRITE,
                    TransactionConflicts.settled(client, request).consumedCapacity());
        } catch (TransactionCanceledException e) {
            throw new StoreException("device registration was cancelled and nothing was written: "
                    + describeCancellation(request, e.cancellationReasons()), e);
        } catch (SdkException e) {
            throw failure("register a device (TransactWriteItems; nothing was written)", e);
        }
    }

    /** The one transaction of a registration: the token and its audit entry, each only if its key is new. */
    TransactWriteItemsRequest registerDeviceRequest(DeviceToken token, AuditEntry deviceAdded) {
        return TransactWriteItemsRequest.builder()
                .transactItems(
                        conditionalPut(TableItems.deviceItem(token)),
                        conditionalPut(TableItems.auditItem(deviceAdded)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                // The SDK may retry after a commit whose answer was lost; the token makes that retry a no-op
                // instead of a condition failure that would report "nothing was written" for a written device.
                .clientRequestToken(deviceAdded.entryId())
                .build();
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        return getItem(TableKeys.deviceToken(deviceId, tokenId), AccessPattern.USE_DEVICE).map(TableItems::device);
    }

    /**
     * A device's use writes the token and then reads the user's revoke-all marker, consistently; it does not
     * ConditionCheck the marker in a transaction. That check held the marker for the transaction's duration, so a
     * client that kept using a stolen secret could make every revoke-all's marker write fail with
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
        Optional<Instant> revokedBefore = getItem(TableKeys.devicesRevoked(token.userId()), AccessPattern.USE_DEVICE)
                .map(TableItems::revokedBefore);
        // NOT_REVOKED: the token was created after the marker's instant (compared as the stored text is).
        if (revokedBefore.filter(before -> TableItems.createdAtText(token)
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
                .tableName(tableName).key(keyOf(key))
                .updateExpression(SLIDE_DEVICE)
                .conditionExpression(TOKEN_IS_USABLE)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        try {
            capacity.record(AccessPattern.USE_DEVICE, WRITE,
                    TransactionConflicts.retryingConflicts(() -> client.updateItem(request)).consumedCapacity());
            return Optional.of(new DeviceToken(token.deviceId(), token.tokenId(), token.userId(), token.deviceType(),
                    token.deviceName(), token.pushToken(), use.now(), token.ipAddress(), token.userAgent(),
                    token.createdAt(), use.newExpiresAt()));
        } catch (ConditionalCheckFailedException e) {
            capacity.record(AccessPattern.USE_DEVICE, WRITE, List.of());
            return Optional.empty();
        } catch (SdkException e) {
            throw failure("use a device token", e);
        }
    }

    /**
     * The token moved to its current-key tokenId in one transaction (Delete on {@value #TOKEN_IS_USABLE}, Put on
     * {@value #KEY_IS_NEW}): the moved token, or empty if not usable. A retry of this very re-key finds the token
     * moved already: that token.
     */
    private Optional<DeviceToken> rekeyDevice(DeviceUse use) {
        for (int attempt = 1; ; attempt++) {
            TransactWriteItemsRequest request = useDeviceRequest(use, attempt);
            try {
                capacity.record(AccessPattern.USE_DEVICE, WRITE,
                        TransactionConflicts.settled(client, request).consumedCapacity());
                return Optional.of(movedToken(use));
            } catch (TransactionCanceledException e) {
                capacity.record(AccessPattern.USE_DEVICE, WRITE, List.of());
                List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
                if (reasons.stream().anyMatch(reason -> CONDITION_FAILED.equals(reason.code()))) {
                    return findDevice(use.token().deviceId(), use.rekeyTo().get())
                            .filter(after -> after.createdAt().equals(use.token().createdAt()));
                }
                if (reasons.stream().anyMatch(reason -> TRANSACTION_CONFLICT.equals(reason.code()))
                        && attempt < MAX_CONSUME_ATTEMPTS) {
                    TransactionConflicts.pause(attempt);
                    continue;
                }
                throw new StoreException(StoreException.Kind.BUSY, "the device token's use was cancelled and nothing "
                        + "was written: " + describeCancellation(request, reasons), e);
            } catch (SdkException e) {
                throw failure("use a device token", e);
            }
        }
    }

    private static DeviceToken movedToken(DeviceUse use) {
        DeviceToken token = use.token();
        return new DeviceToken(token.deviceId(), use.rekeyTo().orElseThrow(), token.userId(), token.deviceType(),
                token.deviceName(), token.pushToken(), use.now(), token.ipAddress(), token.userAgent(),
                token.createdAt(), use.newExpiresAt());
    }

    /** The re-key's transaction, its {@code send}-th request; a use without a re-key is one UpdateItem. */
    private TransactWriteItemsRequest useDeviceRequest(DeviceUse use, int send) {
        DeviceToken token = use.token();
        TableKeys.PrimaryKey key = TableKeys.deviceToken(token.deviceId(), token.tokenId());
        return TransactWriteItemsRequest.builder()
                .transactItems(
                        TransactWriteItem.builder().delete(Delete.builder()
                                .tableName(tableName).key(keyOf(key))
                                .conditionExpression(TOKEN_IS_USABLE)
                                .expressionAttributeNames(deviceConditionNames())
                                .expressionAttributeValues(deviceConditionValues(use))
                                .build()).build(),
                        conditionalPut(TableItems.deviceItem(movedToken(use))))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .clientRequestToken(TransactionConflicts.clientRequestToken(use.attemptId(), send))
                .build();
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
        return getItem(TableKeys.devicesRevoked(userId), AccessPattern.LIST_DEVICES).map(TableItems::revokedBefore);
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        Map<String, AttributeValue> values = boundAsValues(TableItems.revocationItem(userId, revokedBefore, expiresAt));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(TableKeys.devicesRevoked(userId)))
                .updateExpression(MARK_REVOKED)
                .conditionExpression(MARKER_IS_EARLIER)
                .expressionAttributeNames(Map.of("#revokedBefore", ItemAttributes.REVOKED_BEFORE,
                        "#userId", ItemAttributes.USER_ID, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(values)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        // A failed condition: a marker as late or later is there already (a concurrent revoke-all, or a retry).
        updateUnlessConditionFails(request, AccessPattern.REVOKE_DEVICES, "mark a user's devices revoked");
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return queryIndexPrefix(TableKeys.user(userId), TableKeys.devicesPrefix(), Optional.of(now),
                AccessPattern.LIST_DEVICES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::device).toList();
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        if (deviceId.isPresent()) {
            return deleteDeviceTokens(userId, deviceId.get());
        }
        // Revoke-all: the index finds what to delete; the marker written before (markDevicesRevoked) refuses
        // every token the index does not show yet.
        List<Map<String, AttributeValue>> items = queryIndexPrefix(TableKeys.user(userId), TableKeys.devicesPrefix(),
                Optional.empty(), AccessPattern.REVOKE_DEVICES);
        deleteAll(items, AccessPattern.REVOKE_DEVICES);
        return items.stream().map(DynamoDbItems::fromAttributeValues).map(TableItems::device).toList();
    }

    /**
     * One device's tokens share the partition {@code DEVICE#<deviceId>}: a consistent Query there sees a token
     * registered a moment before, which GSI1 may not. The partition is read again after the deletes, until it
     * is empty, so a token a concurrent use moved to its current-key id meanwhile is deleted too.
     */
    private List<DeviceToken> deleteDeviceTokens(String userId, String deviceId) {
        QueryRequest request = QueryRequest.builder()
                .tableName(tableName)
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
            List<Map<String, AttributeValue>> items = query(request, AccessPattern.REVOKE_DEVICES, Integer.MAX_VALUE);
            if (items.isEmpty()) {
                break;
            }
            deleteAll(items, AccessPattern.REVOKE_DEVICES);
            items.stream().map(DynamoDbItems::fromAttributeValues).map(TableItems::device).forEach(deleted::add);
        }
        return deleted;
    }

    // Audit

    @Override
    public boolean appendAudit(AuditEntry entry) {
        Optional<Map<String, Object>> holder = putIfNew(TableItems.auditItem(entry),
                TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId()), AccessPattern.APPEND_AUDIT);
        // Written now, or held by this very entry: a retried put whose first answer was lost.
        return holder.isEmpty() || TableItems.isSameAuditEntry(holder.get(), entry);
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                      int limit, Instant now) {
        String partition = TableKeys.user(userId);
        QueryRequest.Builder request = QueryRequest.builder()
                .tableName(tableName)
                .keyConditionExpression(AUDIT_RANGE)
                .filterExpression(RETAINED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(
                        ":pk", s(partition),
                        ":from", s(TableKeys.auditRangeStart(from)),
                        ":to", s(TableKeys.auditRangeEnd(to)),
                        ":now", n(now.getEpochSecond())))
                .scanIndexForward(false)
                .limit(limit)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        before.ifPresent(position -> request.exclusiveStartKey(Map.of(
                ItemAttributes.PK, s(partition),
                ItemAttributes.SK, s(TableKeys.auditSortKey(position.timestamp(), position.entryId())))));
        List<AuditEntry> entries = new ArrayList<>();
        // The filter runs after Limit, so a page may hold fewer entries than asked: follow pages until enough.
        for (Map<String, AttributeValue> item : query(request.build(), AccessPattern.QUERY_AUDIT, limit)) {
            entries.add(TableItems.audit(DynamoDbItems.fromAttributeValues(item)));
        }
        return entries.size() > limit ? entries.subList(0, limit) : entries;
    }

    // Rate limits

    @Override
    public long takePlace(Place place, long ceiling) {
        CounterWindow window = place.window();
        TableKeys.PrimaryKey key = counterKey(window);
        // The counter's own attributes (userId, action, windowStart, ttl) come from the model, bound as :<name>.
        Map<String, AttributeValue> values = boundAsValues(TableItems.counterAttributes(window.userId(), window.action(),
                window.windowStart(), window.expiresAt()));
        values.put(":zero", n(0));
        values.put(":one", n(1));
        values.put(":ceiling", n(ceiling));
        Map<String, String> names = new HashMap<>(Map.of(
                "#count", ItemAttributes.COUNT, "#userId", ItemAttributes.USER_ID,
                "#action", ItemAttributes.ACTION, "#windowStart", ItemAttributes.WINDOW_START,
                "#ttl", ItemAttributes.TTL));
        place.attemptId().ifPresent(attemptId -> names.put("#place", TableItems.placeAttribute(attemptId)));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(key))
                .updateExpression(place.attemptId().isPresent() ? TAKE_PLACE : TAKE_UNNAMED_PLACE)
                .conditionExpression(place.attemptId().isPresent() ? PLACE_IS_FREE : BELOW_CEILING)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .returnValues(ReturnValue.UPDATED_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return conditionalUpdate(request, key, AccessPattern.COUNT_RATE_LIMIT,
                updated -> TableItems.number(updated, ItemAttributes.COUNT),
                current -> {
                    // The attempt already holds a place (a retry whose first answer was lost): that place.
                    Optional<Long> taken = place.attemptId()
                            .flatMap(attemptId -> current.flatMap(item -> TableItems.place(item, attemptId)));
                    // Otherwise the counter is at the ceiling: refused, and nothing was counted.
                    return taken.orElseGet(() -> current.map(item -> TableItems.number(item, ItemAttributes.COUNT))
                            .orElse(ceiling) + 1);
                });
    }

    @Override
    public void givePlaceBack(Place place) {
        // A failed condition: the mark is gone (given back already, a retry) or the counter was reset.
        updateWhilePlaceIsHeld(place, GIVE_PLACE_BACK, Map.of("#count", ItemAttributes.COUNT), Map.of(":one", n(1)),
                "give back a rate-limit place");
    }

    @Override
    public void keepPlace(Place place) {
        // A failed condition: the mark is gone (kept already, a retry; or given back) or the counter was reset.
        updateWhilePlaceIsHeld(place, KEEP_PLACE, Map.of(), Map.of(), "keep a rate-limit place");
    }

    /** UpdateItem {@code update} on the place's counter, on {@value #PLACE_IS_HELD}; a failed condition is done. */
    private void updateWhilePlaceIsHeld(Place place, String update, Map<String, String> names,
                                        Map<String, AttributeValue> values, String what) {
        if (place.attemptId().isEmpty()) {
            return;
        }
        Map<String, String> allNames = new HashMap<>(names);
        allNames.put("#place", TableItems.placeAttribute(place.attemptId().get()));
        UpdateItemRequest.Builder request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(counterKey(place.window())))
                .updateExpression(update)
                .conditionExpression(PLACE_IS_HELD)
                .expressionAttributeNames(allNames)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        if (!values.isEmpty()) {
            request.expressionAttributeValues(values);
        }
        updateUnlessConditionFails(request.build(), AccessPattern.COUNT_RATE_LIMIT, what);
    }

    private static TableKeys.PrimaryKey counterKey(CounterWindow window) {
        return TableKeys.rateLimitWindow(window.userId(), window.action(), window.windowStart());
    }

    @Override
    public int deleteCounters(String userId, String action) {
        QueryRequest request = QueryRequest.builder()
                .tableName(tableName)
                .keyConditionExpression(COUNTER_PARTITION)
                .expressionAttributeValues(Map.of(":pk", s(TableKeys.rateLimitPartition(userId, action))))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        List<Map<String, AttributeValue>> items = query(request, AccessPattern.RESET_RATE_LIMIT, Integer.MAX_VALUE);
        deleteAll(items, AccessPattern.RESET_RATE_LIMIT);
        return (int) items.stream().map(DynamoDbItems::fromAttributeValues)
                .filter(item -> TableItems.number(item, ItemAttributes.COUNT) > 0).count();
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        QueryRequest request = QueryRequest.builder()
                .tableName(tableName)
                .keyConditionExpression(COUNTER_RANGE)
                .filterExpression(NOT_EXPIRED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(
                        ":pk", s(TableKeys.rateLimitPartition(userId, action)),
                        ":from", s(TableKeys.rateLimitWindow(userId, action, fromWindowStart).sk()),
                        ":to", s(TableKeys.rateLimitWindow(userId, action, toWindowStart).sk()),
                        ":now", n(now.getEpochSecond())))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return query(request, AccessPattern.READ_RATE_LIMIT, Integer.MAX_VALUE).stream()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::counter).toList();
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        Map<String, Object> item = TableItems.cooldownItem(cooldown, cooldown.endsAt().plus(RateLimiter.COUNTER_GRACE));
        Map<String, AttributeValue> values = boundAsValues(item);
        values.put(":now", n(cooldown.now().toEpochMilli()));
        values.put(":attemptId", values.remove(":" + ItemAttributes.CLAIMED_BY));
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(key))
                .updateExpression(CLAIM_COOLDOWN)
                .conditionExpression(COOLDOWN_IS_FREE)
                .expressionAttributeNames(Map.of("#busyUntil", ItemAttributes.BUSY_UNTIL,
                        "#claimedBy", ItemAttributes.CLAIMED_BY, "#userId", ItemAttributes.USER_ID,
                        "#action", ItemAttributes.ACTION, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return conditionalUpdate(request, key, AccessPattern.CLAIM_COOLDOWN, updated -> Optional.<Instant>empty(),
                current -> Optional.of(current.map(TableItems::busyUntil).orElse(cooldown.endsAt())));
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        try {
            capacity.record(AccessPattern.CLAIM_COOLDOWN, WRITE, client.deleteItem(request -> request
                    .tableName(tableName)
                    .key(keyOf(TableKeys.cooldown(cooldown.userId(), cooldown.action())))
                    .conditionExpression(COOLDOWN_IS_CLAIMED_BY_ME)
                    .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY))
                    .expressionAttributeValues(Map.of(":attemptId", s(cooldown.attemptId())))
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
        } catch (ConditionalCheckFailedException e) {
            // Released already (a retry), or claimed by another attempt since: nothing of this attempt's is left.
            capacity.record(AccessPattern.CLAIM_COOLDOWN, WRITE, List.of());
        } catch (SdkException e) {
            throw failure("release a cooldown", e);
        }
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        QueryRequest request = QueryRequest.builder()
                .tableName(tableName)
                .keyConditionExpression(COUNTER_WINDOW)
                .filterExpression(NOT_EXPIRED)
                .expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(Map.of(":pk", s(key.pk()), ":sk", s(key.sk()), ":now", n(now.getEpochSecond())))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return query(request, AccessPattern.READ_RATE_LIMIT, Integer.MAX_VALUE).stream().findFirst()
                .map(DynamoDbItems::fromAttributeValues).map(TableItems::counter);
    }

    // Idempotency-Keys

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(pending.keyDigest());
        try {
            capacity.record(AccessPattern.IDEMPOTENCY, WRITE, client.putItem(request -> request
                    .tableName(tableName)
                    .item(DynamoDbItems.toAttributeValues(TableItems.idempotencyItem(pending)))
                    .conditionExpression(IDEMPOTENCY_KEY_IS_FREE)
                    .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY,
                            "#claimedAt", ItemAttributes.CLAIMED_AT, "#answer", ItemAttributes.ANSWER,
                            "#ttl", ItemAttributes.TTL))
                    .expressionAttributeValues(Map.of(":claimedBy", s(pending.claimedBy()),
                            ":staleBefore", s(TableItems.claimedAtText(staleBefore)),
                            ":now", n(pending.claimedAt().getEpochSecond())))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
            return Optional.empty();
        } catch (ConditionalCheckFailedException e) {
            capacity.record(AccessPattern.IDEMPOTENCY, WRITE, List.of());
            Optional<Map<String, Object>> holder = e.hasItem() && !e.item().isEmpty()
                    ? Optional.of(DynamoDbItems.fromAttributeValues(e.item())) : getItem(key, AccessPattern.IDEMPOTENCY);
            // Gone between the write and the read (released): not held; the caller's next claim takes it.
            return Optional.of(holder.map(TableItems::idempotency).orElse(new IdempotencyRecord(pending.keyDigest(),
                    pending.requestDigest(), "released", pending.claimedAt(), Optional.empty(), pending.expiresAt())));
        } catch (SdkException e) {
            throw failure("claim an Idempotency-Key", e);
        }
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(tableName)
                .key(keyOf(TableKeys.idempotencyKey(keyDigest)))
                .updateExpression(STORE_ANSWER)
                .conditionExpression(CLAIM_IS_HELD)
                .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY,
                        "#answerStatus", ItemAttributes.ANSWER_STATUS, "#answer", ItemAttributes.ANSWER))
                .expressionAttributeValues(Map.of(":claimedBy", s(claimedBy), ":answerStatus", n(answer.status()),
                        ":answer", s(answer.sealedBody())))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        // A failed condition: taken over as stale meanwhile: the answer is not this key's any more.
        updateUnlessConditionFails(request, AccessPattern.IDEMPOTENCY, "store an idempotent answer");
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        try {
            capacity.record(AccessPattern.IDEMPOTENCY, WRITE, client.deleteItem(request -> request
                    .tableName(tableName)
                    .key(keyOf(TableKeys.idempotencyKey(keyDigest)))
                    .conditionExpression(CLAIM_IS_PENDING)
                    .expressionAttributeNames(Map.of("#claimedBy", ItemAttributes.CLAIMED_BY,
                            "#answer", ItemAttributes.ANSWER))
                    .expressionAttributeValues(Map.of(":claimedBy", s(claimedBy)))
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
        } catch (ConditionalCheckFailedException e) {
            capacity.record(AccessPattern.IDEMPOTENCY, WRITE, List.of());
        } catch (SdkException e) {
            throw failure("release an Idempotency-Key", e);
        }
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        return getItem(TableKeys.idempotencyKey(keyDigest), AccessPattern.IDEMPOTENCY)
                .filter(item -> TableItems.number(item, ItemAttributes.TTL) > now.getEpochSecond())
                .map(TableItems::idempotency);
    }

    // Operations

    @Override
    public void checkReady() {
        call("describe the table", () -> client.describeTable(request -> request.tableName(tableName)));
        capacity.record(AccessPattern.CHECK_READY, READ, List.of());
    }

    /** The client belongs to whoever built it; closing the store leaves it open. */
    @Override
    public void close() {
    }

    // Helpers

    /**
     * PutItem on {@value #KEY_IS_NEW}. Empty when the item was written; otherwise the item that holds the key
     * (returned by the failed condition, or read once where the engine does not return it; an empty map if it
     * vanished in between), so the caller can tell its own earlier write from another item's.
     */
    private Optional<Map<String, Object>> putIfNew(Map<String, Object> item, TableKeys.PrimaryKey key,
                                                   AccessPattern pattern) {
        try {
            capacity.record(pattern, WRITE, client.putItem(request -> request
                    .tableName(tableName)
                    .item(DynamoDbItems.toAttributeValues(item))
                    .conditionExpression(KEY_IS_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)).consumedCapacity());
            return Optional.empty();
        } catch (ConditionalCheckFailedException e) {
            capacity.record(pattern, WRITE, List.of());
            if (e.hasItem() && !e.item().isEmpty()) {
                return Optional.of(DynamoDbItems.fromAttributeValues(e.item()));
            }
            return Optional.of(getItem(key, pattern).orElse(Map.of()));
        } catch (SdkException e) {
            throw failure("write an item", e);
        }
    }

    /**
     * An UpdateItem whose failed condition means "nothing to do" (the write was done already, or is no longer
     * wanted): only other failures are errors.
     */
    private void updateUnlessConditionFails(UpdateItemRequest request, AccessPattern pattern, String what) {
        try {
            capacity.record(pattern, WRITE,
                    TransactionConflicts.retryingConflicts(() -> client.updateItem(request)).consumedCapacity());
        } catch (ConditionalCheckFailedException e) {
            capacity.record(pattern, WRITE, List.of());
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    private TransactWriteItem conditionalPut(Map<String, Object> item) {
        return TransactWriteItem.builder().put(Put.builder()
                .tableName(tableName)
                .item(DynamoDbItems.toAttributeValues(item))
                .conditionExpression(KEY_IS_NEW)
                .build()).build();
    }

    private <T> T conditionalUpdate(UpdateItemRequest request, TableKeys.PrimaryKey key, AccessPattern pattern,
                                    Function<Map<String, Object>, T> applied,
                                    Function<Optional<Map<String, Object>>, T> refused) {
        try {
            UpdateItemResponse response = TransactionConflicts.retryingConflicts(() -> client.updateItem(request));
            capacity.record(pattern, WRITE, response.consumedCapacity());
            return applied.apply(DynamoDbItems.fromAttributeValues(response.attributes()));
        } catch (ConditionalCheckFailedException e) {
            capacity.record(pattern, WRITE, List.of());
            if (e.hasItem() && !e.item().isEmpty()) {
                return refused.apply(Optional.of(DynamoDbItems.fromAttributeValues(e.item())));
            }
            // DynamoDB returns no item only when there is none; an engine without the feature needs a read.
            return refused.apply(conditionFailureReturnsItem ? Optional.empty() : getItem(key, pattern));
        } catch (SdkException e) {
            throw failure("update an item", e);
        }
    }

    private Optional<Map<String, Object>> getItem(TableKeys.PrimaryKey key, AccessPattern pattern) {
        var response = call("read an item", () -> client.getItem(request -> request
                .tableName(tableName)
                .key(keyOf(key))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        capacity.record(pattern, READ, response.consumedCapacity());
        return response.hasItem() && !response.item().isEmpty()
                ? Optional.of(DynamoDbItems.fromAttributeValues(response.item()))
                : Optional.empty();
    }

    private List<Map<String, AttributeValue>> queryIndexPrefix(String gsi1pk, String prefix, Optional<Instant> activeAt,
                                                               AccessPattern pattern) {
        QueryRequest.Builder request = QueryRequest.builder()
                .tableName(tableName)
                .indexName(TableKeys.GSI1)
                .keyConditionExpression(GSI1_BEGINS_WITH)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":pk", s(gsi1pk), ":prefix", s(prefix)));
        activeAt.ifPresent(now -> {
            request.filterExpression(NOT_EXPIRED).expressionAttributeNames(Map.of("#ttl", ItemAttributes.TTL));
            values.put(":now", n(now.getEpochSecond()));
        });
        request.expressionAttributeValues(values);
        return query(request.build(), pattern, Integer.MAX_VALUE);
    }

    /** Follows LastEvaluatedKey until the query is exhausted or {@code enough} items were collected. */
    private List<Map<String, AttributeValue>> query(QueryRequest first, AccessPattern pattern, int enough) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        QueryRequest request = first;
        while (true) {
            QueryRequest page = request;
            QueryResponse response = call("query the table", () -> client.query(page));
            capacity.record(pattern, READ, response.consumedCapacity());
            items.addAll(response.items());
            if (items.size() >= enough || !response.hasLastEvaluatedKey() || response.lastEvaluatedKey().isEmpty()) {
                return items;
            }
            Map<String, AttributeValue> next = response.lastEvaluatedKey();
            request = request.toBuilder().exclusiveStartKey(next).build();
        }
    }

    /** Deletes items by their primary key, in BatchWriteItem groups of 25, retrying unprocessed requests. */
    private void deleteAll(List<Map<String, AttributeValue>> items, AccessPattern pattern) {
        for (int start = 0; start < items.size(); start += BATCH_WRITE_LIMIT) {
            List<WriteRequest> batch = new ArrayList<>();
            for (Map<String, AttributeValue> item : items.subList(start, Math.min(items.size(), start + BATCH_WRITE_LIMIT))) {
                batch.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(Map.of(
                        ItemAttributes.PK, item.get(ItemAttributes.PK),
                        ItemAttributes.SK, item.get(ItemAttributes.SK))).build()).build());
            }
            writeBatch(batch, pattern);
        }
    }

    private void writeBatch(List<WriteRequest> batch, AccessPattern pattern) {
        Map<String, List<WriteRequest>> pending = Map.of(tableName, batch);
        for (int attempt = 0; attempt < MAX_BATCH_ATTEMPTS; attempt++) {
            Map<String, List<WriteRequest>> requests = pending;
            BatchWriteItemResponse response = call("delete items", () -> TransactionConflicts.retryingConflicts(
                    () -> client.batchWriteItem(request -> request
                            .requestItems(requests).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
            capacity.record(pattern, WRITE, response.consumedCapacity());
            if (!response.hasUnprocessedItems() || response.unprocessedItems().isEmpty()) {
                return;
            }
            pending = response.unprocessedItems();
            backOff(attempt);
        }
        throw new StoreException(StoreException.Kind.THROTTLED, "DynamoDB left "
                + pending.getOrDefault(tableName, List.of()).size() + " deletes unprocessed after " + MAX_BATCH_ATTEMPTS
                + " attempts; the table is throttled, retry later", null);
    }

    private static void backOff(int attempt) {
        try {
            // Exponential backoff, as AWS recommends for unprocessed batch items.
            Thread.sleep(BASE_BACKOFF_MILLIS << attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while retrying unprocessed deletes", e);
        }
    }

    /**
     * An item's attributes as expression values named {@code :<attribute>} (its key attributes left out), so that
     * an update sets what the model writes without restating it: a mutable map, for the request's own values.
     */
    private static Map<String, AttributeValue> boundAsValues(Map<String, Object> attributes) {
        Map<String, AttributeValue> values = new HashMap<>();
        DynamoDbItems.toAttributeValues(attributes).forEach((name, value) -> {
            if (!name.equals(ItemAttributes.PK) && !name.equals(ItemAttributes.SK)) {
                values.put(":" + name, value);
            }
        });
        return values;
    }

    private static Map<String, AttributeValue> keyOf(TableKeys.PrimaryKey key) {
        return Map.of(ItemAttributes.PK, s(key.pk()), ItemAttributes.SK, s(key.sk()));
    }

    private static String describeCancellation(TransactWriteItemsRequest request, List<CancellationReason> reasons) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < request.transactItems().size(); i++) {
            TransactWriteItem item = request.transactItems().get(i);
            Map<String, AttributeValue> key = item.put() != null ? item.put().item()
                    : item.update() != null ? item.update().key() : null;
            String code = Optional.ofNullable(reasonCode(reasons, i)).orElse("unknown");
            if (key == null && item.delete() != null) {
                key = item.delete().key();
            }
            if (key == null && item.conditionCheck() != null) {
                key = item.conditionCheck().key();
            }
            String message = i < reasons.size() && reasons.get(i).message() != null ? " (" + reasons.get(i).message() + ")" : "";
            parts.add("item " + (i + 1) + " " + key.get(ItemAttributes.PK).s() + " / " + key.get(ItemAttributes.SK).s()
                    + ": " + code + message);
        }
        return String.join("; ", parts);
    }

    /** The cancellation reason of the transaction's item at {@code index}, if DynamoDB gave one. */
    private static String reasonCode(List<CancellationReason> reasons, int index) {
        return index < reasons.size() ? reasons.get(index).code() : null;
    }

    /** The service's error code (ThrottlingException, ...) or, for a failure of the client itself, its type. */
    private static String errorCode(SdkException e) {
        if (e instanceof AwsServiceException service && service.awsErrorDetails() != null
                && service.awsErrorDetails().errorCode() != null) {
            return service.awsErrorDetails().errorCode();
        }
        return e.getClass().getSimpleName();
    }

    private <T> T call(String what, java.util.function.Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    private void call(String what, Runnable request) {
        try {
            request.run();
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    /**
     * Every failure of the SDK, of the service (throttling, a 500) or of the client (timeout, connection
     * refused or reset, retries exhausted), becomes a StoreException: the caller answers 503 and the client
     * retries later. The SDK has already retried within its bounded policy.
     */
    private StoreException failure(String what, SdkException e) {
        return new StoreException(kindOf(e), "DynamoDB could not " + what + " on table '" + tableName + "': "
                + errorCode(e) + " - " + e.getMessage(), e);
    }

    /**
     * What happened, for the caller's answer: a timeout, throttling, no connection, a 5xx of the service, or a
     * 4xx the store never provokes on a well-formed table (an engine without the operation, a table changed
     * under the service): the last is named as unexpected rather than passed off as a timeout.
     */
    static StoreException.Kind kindOf(SdkException e) {
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException
                || e instanceof TransactionInProgressException) {
            return StoreException.Kind.TIMED_OUT; // in progress: the transaction's own earlier try has not ended
        }
        if (e instanceof TransactionConflictException) {
            return StoreException.Kind.BUSY; // a running transaction held the item each time: nothing was written
        }
        if (e instanceof AwsServiceException service) {
            if (service.isThrottlingException()) {
                return StoreException.Kind.THROTTLED;
            }
            return service.statusCode() >= 500 ? StoreException.Kind.FAILED : StoreException.Kind.UNEXPECTED_ANSWER;
        }
        // A client-side failure: a read that timed out, or any other I/O failure of the connection (refused,
        // reset, no answer, unknown host), whichever HTTP client the SDK runs on.
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.SocketTimeoutException) {
                return StoreException.Kind.TIMED_OUT;
            }
            if (cause instanceof java.io.IOException) {
                return StoreException.Kind.UNREACHABLE;
            }
        }
        return StoreException.Kind.FAILED;
    }
}

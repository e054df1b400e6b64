package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.boundAsValues;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Codes on DynamoDB: the code items {@code CODE#<digest>} and each user's current-code marker, one per user and
 * code type, which names the code that may be consumed (why a marker:
 * docs/decisions/0004-one-usable-code-per-user-and-type.md).
 *
 * <p><b>Algorithm.</b> Every conditional write carries an attempt id that the store recognises when its own
 * earlier write (a retry of the SDK whose answer was lost) makes the condition fail.
 *
 * <p><b>A new code</b> (a send, after admission):
 * <ol>
 *   <li>PutItem with {@value DynamoDbTable#KEY_IS_NEW} and {@code issuedBy = <issueId>},
 *   {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}. {@code ConditionalCheckFailed} with this
 *   {@code issuedBy} is the retry of this very insert (stored); with another, a key collision (the domain
 *   generates another code).</li>
 *   <li>Keep only the newest code: UpdateItem of the marker {@value #MAKE_CURRENT} on
 *   {@value #IS_NOT_OLDER_THAN_CURRENT} ({@code UPDATED_OLD}). A failed condition means a newer code is current:
 *   this one is deleted (unless the marker names it already: a retry of this very call).</li>
 *   <li>DeleteItem of the code the marker named before. The domain then deletes, for tidiness, the earlier codes
 *   its GSI1 read showed.</li>
 * </ol>
 *
 * <p><b>Consume a code</b>: one attempt's transaction ({@link DynamoDbAttempts}, which has the algorithm): Update
 * {@value #MARK_USED} on {@value #CODE_IS_CONSUMABLE} and the context's ({@value #AND_SAME_CONTEXT}, or
 * {@value #AND_NO_CONTEXT}), stamped with the attempt in {@code consumedBy}; the CODE_VERIFIED entry; for a NUMERIC
 * code, the give-back; as the guard, a ConditionCheck of the marker, {@value #IS_CURRENT}, so a superseded code is
 * never used, whatever GSI1 shows. Refused is rejected, and the old item says why (USED, EXPIRED, NOT_FOUND; nothing
 * when the guard failed); after a conflict, a code another attempt used is rejected.
 *
 * <p><b>Invalidate codes</b> (the operator's, or a lock-out's for one format):
 * <ol>
 *   <li>UpdateItem {@value #CLEAR_CURRENT} of the marker on {@value #HAS_CURRENT} (and {@value #AND_CURRENT_FORMAT}
 *   for one format), ALL_OLD: from here on no code of the user and type is consumed;</li>
 *   <li>DeleteItem of the code it named;</li>
 *   <li>Query GSI1 for the others (tidiness) and BatchWriteItem deletes.</li>
 * </ol>
 *
 * <p><b>Besides</b>: list codes: Query GSI1 on the user's codes of one type; delete one code (a failed delivery):
 * DeleteItem; read a code: a consistent GetItem, returned as stored (the domain compares its ttl with its clock).
 * A delete that meets a running consume of the code is sent again ({@link TransactionConflicts}).
 */
final class DynamoDbCodes implements CodeRepository {

    static final String MARK_USED = "SET #isUsed = :true, #consumedBy = :attemptId";
    static final String CODE_IS_CONSUMABLE = "attribute_exists(PK) AND #isUsed = :false AND #ttl > :now"
            + " AND #userId = :userId AND #codeType = :codeType";
    static final String AND_SAME_CONTEXT = " AND #contextDigest = :contextDigest";
    static final String AND_NO_CONTEXT = " AND attribute_not_exists(#contextDigest)";
    /** The code named by the user's current-code marker; the values are the marker item's, bound as :<name>. */
    static final String MAKE_CURRENT = "SET #current = :current, #currentAt = :currentAt,"
            + " #currentFormat = :currentFormat, #userId = :userId, #ttl = :ttl";
    /** VerificationCode.mayReplace as a condition: createdAt is fixed-width ISO text; a tie goes to the later writer. */
    static final String IS_NOT_OLDER_THAN_CURRENT = "attribute_not_exists(#currentAt) OR #currentAt <= :currentAt";
    /** Invalidation: no code is current any more; currentAt stays, so an older code in flight cannot take over. */
    static final String CLEAR_CURRENT = "REMOVE #current, #currentFormat";
    static final String HAS_CURRENT = "attribute_exists(#current)";
    static final String AND_CURRENT_FORMAT = " AND #currentFormat = :currentFormat";
    /** No marker: a code stored before markers existed, still governed by deletion alone. */
    static final String IS_CURRENT = "attribute_not_exists(PK) OR #current = :digest";

    private final DynamoDbTable table;

    DynamoDbCodes(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public boolean insertCode(VerificationCode code, String issueId) {
        Optional<Map<String, Object>> holder = table.putIfNew(CodeItems.codeItem(code, issueId),
                TableKeys.code(code.digest()), AccessPattern.INSERT_CODE);
        // Written now, or the key is held by this very request: its earlier try was applied and the answer lost.
        return holder.isEmpty() || holder.flatMap(CodeItems::issuedBy).filter(issueId::equals).isPresent();
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return table.getItem(TableKeys.code(digest), AccessPattern.VALIDATE_CODE).map(CodeItems::code);
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        return DynamoDbAttempts.run(table, consumeWrite(consumption)).answer(ConsumeOutcome.Consumed::new,
                current -> new ConsumeOutcome.Rejected(current.map(CodeItems::code)));
    }

    /** The consume's {@code send}-th request, with the give-back only while {@code giveBack}. */
    TransactWriteItemsRequest consumeRequest(CodeConsumption consumption, boolean giveBack, int send) {
        return consumeWrite(consumption).request(table, giveBack, send);
    }

    /**
     * The one transaction of a successful verification: the code marked used (and stamped with the attempt id in
     * {@code consumedBy}) on the consumable condition, its CODE_VERIFIED entry, for a NUMERIC code the give-back,
     * and the marker's ConditionCheck as the guard (another code of the user and type is current, or the codes were
     * invalidated: this one is as good as deleted, whether or not its deletion has happened yet). After a conflict,
     * a code another attempt used is rejected.
     */
    private DynamoDbAttempts.Write consumeWrite(CodeConsumption consumption) {
        TableKeys.PrimaryKey key = TableKeys.code(consumption.digest());
        Map<String, String> names = new HashMap<>(Map.of("#isUsed", ItemAttributes.IS_USED, "#ttl", ItemAttributes.TTL,
                "#consumedBy", ItemAttributes.CONSUMED_BY, "#userId", ItemAttributes.USER_ID,
                "#codeType", ItemAttributes.CODE_TYPE, "#contextDigest", ItemAttributes.CONTEXT_DIGEST));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":true", bool(true), ":false", bool(false),
                ":now", n(consumption.now().getEpochSecond()), ":attemptId", s(consumption.attemptId()),
                ":userId", s(consumption.userId()), ":codeType", s(consumption.codeType().name())));
        consumption.contextDigest().ifPresent(digest -> values.put(":contextDigest", s(digest)));
        TransactWriteItem markUsed = DynamoDbAttempts.conditionedUpdate(table, key, Update.builder()
                .updateExpression(MARK_USED)
                .conditionExpression(CODE_IS_CONSUMABLE
                        + (consumption.contextDigest().isPresent() ? AND_SAME_CONTEXT : AND_NO_CONTEXT))
                .expressionAttributeNames(names)
                .expressionAttributeValues(values));
        TransactWriteItem isCurrent = TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                .tableName(table.tableName)
                .key(keyOf(TableKeys.currentCode(consumption.userId(), consumption.codeType())))
                .conditionExpression(IS_CURRENT)
                .expressionAttributeNames(Map.of("#current", ItemAttributes.CURRENT))
                .expressionAttributeValues(Map.of(":digest", s(consumption.digest())))
                .build()).build();
        return new DynamoDbAttempts.Write(AccessPattern.CONSUME_CODE,
                new DynamoDbAttempts.Naming("consume a code", "verification", "; retry the verification",
                        StoreException.Kind.FAILED),
                consumption.attemptId(), List.of(markUsed),
                List.of(table.conditionalPut(table.auditItem(consumption.verified()))),
                consumption.placeToGiveBack(), Optional.of(isCurrent),
                DynamoDbAttempts.Mark.stamped(key, consumption.attemptId(), ItemAttributes.CONSUMED_BY,
                        current -> current.map(CodeItems::code).filter(VerificationCode::used).isPresent()));
    }

    @Override
    public List<VerificationCode> makeCurrent(VerificationCode code) {
        TableKeys.PrimaryKey marker = TableKeys.currentCode(code.userId(), code.codeType());
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(marker))
                .updateExpression(MAKE_CURRENT)
                .conditionExpression(IS_NOT_OLDER_THAN_CURRENT)
                .expressionAttributeNames(Map.of("#current", ItemAttributes.CURRENT,
                        "#currentAt", ItemAttributes.CURRENT_AT, "#currentFormat", ItemAttributes.CURRENT_FORMAT,
                        "#userId", ItemAttributes.USER_ID, "#ttl", ItemAttributes.TTL))
                .expressionAttributeValues(boundAsValues(CodeItems.currentCodeItem(code)))
                .returnValues(ReturnValue.UPDATED_OLD)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        Optional<String> replaced = table.conditionalUpdate(request, marker, AccessPattern.KEEP_NEWEST_CODE,
                // Made current: the code it names no longer is.
                old -> CodeItems.currentDigest(old).filter(digest -> !digest.equals(code.digest())),
                // Not newer: this code lost, unless the marker names it already (a retry of this very call).
                current -> current.flatMap(CodeItems::currentDigest).filter(code.digest()::equals).isPresent()
                        ? Optional.empty() : Optional.of(code.digest()));
        return replaced.flatMap(digest -> deleteCodeReturning(digest, AccessPattern.KEEP_NEWEST_CODE)).stream().toList();
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        TableKeys.PrimaryKey marker = TableKeys.currentCode(userId, codeType);
        UpdateItemRequest.Builder builder = UpdateItemRequest.builder()
                .tableName(table.tableName)
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
        Optional<String> current = table.conditionalUpdate(request, marker, AccessPattern.INVALIDATE_CODES,
                CodeItems::currentDigest, nothingCurrent -> Optional.empty());
        List<VerificationCode> deleted = new ArrayList<>(current
                .flatMap(digest -> deleteCodeReturning(digest, AccessPattern.INVALIDATE_CODES)).stream().toList());
        // Then, for tidiness, whatever else the index shows: those codes could not be used any more.
        List<Map<String, AttributeValue>> items = table.queryIndexPrefix(TableKeys.user(userId),
                TableKeys.codesOfTypePrefix(codeType), Optional.empty(), AccessPattern.INVALIDATE_CODES).stream()
                .filter(item -> current.map(digest -> !digest.equals(item.get(ItemAttributes.CODE).s())).orElse(true))
                .filter(item -> format.map(only -> only.name().equals(item.get(ItemAttributes.CODE_FORMAT).s()))
                        .orElse(true))
                .toList();
        table.deleteAll(items, AccessPattern.INVALIDATE_CODES);
        items.stream().map(DynamoDbItems::fromAttributeValues).map(CodeItems::code).forEach(deleted::add);
        return deleted;
    }

    /** DeleteItem of a code by its key, returning what was deleted (nothing if it was gone). */
    private Optional<VerificationCode> deleteCodeReturning(String digest, AccessPattern pattern) {
        // A consume of this code holds it for a moment: the delete is sent again then (TransactionConflicts).
        var response = table.call("delete a code", () -> TransactionConflicts.retryingConflicts(
                () -> table.client.deleteItem(request -> request
                        .tableName(table.tableName)
                        .key(keyOf(TableKeys.code(digest)))
                        .returnValues(ReturnValue.ALL_OLD)
                        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
        table.capacity.record(pattern, WRITE, response.consumedCapacity());
        return response.hasAttributes() && !response.attributes().isEmpty()
                ? Optional.of(CodeItems.code(DynamoDbItems.fromAttributeValues(response.attributes())))
                : Optional.empty();
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return table.queryIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType), Optional.empty(),
                AccessPattern.FIND_CODES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(CodeItems::code).toList();
    }

    @Override
    public void deleteCode(String digest) {
        deleteCodeReturning(digest, AccessPattern.DELETE_CODE);
    }
}

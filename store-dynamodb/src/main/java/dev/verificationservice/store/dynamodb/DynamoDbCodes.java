package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.boundAsValues;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * Codes on DynamoDB: each user's code slot, one item per user and code type ({@code USER#<userId>} /
 * {@code CURRENT#<codeType>}), which names the one code that may be consumed (why:
 * docs/decisions/0004-one-usable-code-per-user-and-type.md) and holds a NUMERIC code itself, with no item of its own
 * and no GSI1 entry; and the items {@code CODE#<digest>} of LINK codes, which are found by the code alone.
 *
 * <p><b>Algorithm.</b> Every conditional write carries an attempt id that the store recognises when its own
 * earlier write (a retry of the SDK whose answer was lost) makes the condition fail.
 *
 * <p><b>A new code</b> (a send, after admission):
 * <ol>
 *   <li>A LINK code only: PutItem of its item with {@value DynamoDbTable#KEY_IS_NEW} and
 *   {@code issuedBy = <issueId>}, {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}. {@code ConditionalCheckFailed}
 *   with this {@code issuedBy} is the retry of this very put; with another, a key collision (the domain generates
 *   another code).</li>
 *   <li>UpdateItem of the slot on {@value #IS_NOT_OLDER_THAN_CURRENT} ({@code ALL_OLD}): it names the new code and,
 *   for a NUMERIC code, holds it (the code it overwrites is gone with the write), for a LINK code holds none; a
 *   NUMERIC code also on {@value #NOT_ANOTHER_CODE_OF_THE_SAME_DIGEST} (an equal code of another request is a
 *   collision). A failed condition means a newer code is current: this one lost (its LINK item is deleted). A retry
 *   of this very write passes its condition again.</li>
 *   <li>Only if the slot named a code it did not hold (a LINK code, or a code the previous release wrote as an
 *   item): DeleteItem of that code.</li>
 * </ol>
 *
 * <p><b>Consume a code</b>: one attempt's transaction ({@link DynamoDbAttempts}, which has the algorithm). A NUMERIC
 * code: Update of the slot {@value #MARK_USED} on {@value #SLOT_CODE_IS_CONSUMABLE} and the context's, stamped with
 * the attempt in {@code consumedBy}, the CODE_VERIFIED entry and the give-back: the slot is its own guard. A slot
 * that names the code without holding it (written by the previous release) sends the item's transaction instead. A
 * LINK code: Update of its item {@value #MARK_USED} on {@value #CODE_IS_CONSUMABLE} and the context's
 * ({@value #AND_SAME_CONTEXT}, or {@value #AND_NO_CONTEXT}), the entry and, as the guard, a ConditionCheck of the
 * slot, {@value #IS_CURRENT}, so a superseded code is never used, whatever GSI1 shows. Refused is rejected, and the
 * old item says why (USED, EXPIRED, NOT_FOUND; nothing when the guard failed); after a conflict, a code another
 * attempt used is rejected.
 *
 * <p><b>Invalidate codes</b> (the operator's, or a lock-out's for one format):
 * <ol>
 *   <li>UpdateItem {@code REMOVE} of the slot's current code and what it holds, on {@value #HAS_CURRENT} (and
 *   {@value #AND_CURRENT_FORMAT} for one format), ALL_OLD: from here on no code of the user and type is
 *   consumed;</li>
 *   <li>DeleteItem of the code it named, if it did not hold it;</li>
 *   <li>Query GSI1 for the others (tidiness) and BatchWriteItem deletes.</li>
 * </ol>
 *
 * <p><b>Besides</b>: list codes: GetItem of the slot and Query GSI1 on the user's LINK codes of one type; delete
 * one code (a failed delivery): the slot's {@code REMOVE} on {@value #HOLDS_CODE} for a NUMERIC code, DeleteItem of
 * the item otherwise; read a code: a consistent GetItem of the slot (NUMERIC) or of the item (LINK), returned as
 * stored (the domain compares its expiry with its clock). A delete that meets a running consume of the code is sent
 * again ({@link TransactionConflicts}).
 */
final class DynamoDbCodes implements CodeRepository {

    static final String MARK_USED = "SET #isUsed = :true, #consumedBy = :attemptId";
    /** The slot holds this code, unused and unexpired, the user's; the code type is in the slot's key. */
    static final String SLOT_CODE_IS_CONSUMABLE = "#current = :digest AND #code = :digest AND #isUsed = :false"
            + " AND #expiresAt > :now AND #userId = :userId";
    /** A NUMERIC code equal to the one the slot holds, written by another request, is a collision. */
    static final String NOT_ANOTHER_CODE_OF_THE_SAME_DIGEST = "attribute_not_exists(#code) OR #code <> :code"
            + " OR #issuedBy = :issuedBy";
    static final String HOLDS_CODE = "#code = :code";
    static final String CODE_IS_CONSUMABLE = "attribute_exists(PK) AND #isUsed = :false AND #ttl > :now"
            + " AND #userId = :userId AND #codeType = :codeType";
    static final String AND_SAME_CONTEXT = " AND #contextDigest = :contextDigest";
    static final String AND_NO_CONTEXT = " AND attribute_not_exists(#contextDigest)";
    /** VerificationCode.mayReplace as a condition: createdAt is fixed-width ISO text; a tie goes to the later writer. */
    static final String IS_NOT_OLDER_THAN_CURRENT = "attribute_not_exists(#currentAt) OR #currentAt <= :currentAt";
    static final String HAS_CURRENT = "attribute_exists(#current)";
    static final String AND_CURRENT_FORMAT = " AND #currentFormat = :currentFormat";
    /** No marker: a code stored before markers existed, still governed by deletion alone. */
    static final String IS_CURRENT = "attribute_not_exists(PK) OR #current = :digest";

    private final DynamoDbTable table;

    DynamoDbCodes(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public CodePlacement placeCode(VerificationCode code, String issueId) {
        if (code.format() == CodeFormat.NUMERIC) {
            // What the new code has not, the slot must not keep from the code it replaces.
            List<String> removed = new ArrayList<>(List.of(ItemAttributes.CONSUMED_BY));
            if (code.contextDigest().isEmpty()) {
                removed.add(ItemAttributes.CONTEXT_DIGEST);
            }
            if (code.smsRange().isEmpty()) {
                removed.add(ItemAttributes.SMS_RANGE);
            }
            return writeSlot(code, CodeItems.slotItem(code, issueId), removed, issueId);
        }
        Optional<Map<String, Object>> holder = table.putIfNew(CodeItems.codeItem(code, issueId),
                TableKeys.code(code.digest()), AccessPattern.INSERT_CODE);
        // Written now, or the key is held by this very request: its earlier try was applied and the answer lost.
        if (holder.isPresent() && holder.flatMap(CodeItems::issuedBy).filter(issueId::equals).isEmpty()) {
            return new CodePlacement.KeyTaken();
        }
        return writeSlot(code, CodeItems.currentCodeItem(code), CodeItems.INLINE_CODE, issueId);
    }

    /**
     * The slot's one write of a new code: {@code slot}'s attributes set, {@code removed} removed, on the conditions
     * the class describes; then what it made unusable.
     */
    private CodePlacement writeSlot(VerificationCode code, Map<String, Object> slot, List<String> removed,
                                    String issueId) {
        TableKeys.PrimaryKey key = TableKeys.currentCode(code.userId(), code.codeType());
        boolean holds = slot.containsKey(ItemAttributes.CODE);
        Map<String, Object> set = new LinkedHashMap<>(slot);
        set.remove(ItemAttributes.PK);
        set.remove(ItemAttributes.SK);
        Map<String, String> names = new HashMap<>();
        set.keySet().forEach(name -> names.put("#" + name, name));
        removed.forEach(name -> names.put("#" + name, name));
        String update = "SET " + String.join(", ", set.keySet().stream().map(name -> "#" + name + " = :" + name).toList())
                + " REMOVE " + String.join(", ", removed.stream().map(name -> "#" + name).toList());
        String condition = holds ? "(" + IS_NOT_OLDER_THAN_CURRENT + ") AND (" + NOT_ANOTHER_CODE_OF_THE_SAME_DIGEST + ")"
                : IS_NOT_OLDER_THAN_CURRENT;
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(key))
                .updateExpression(update)
                .conditionExpression(condition)
                .expressionAttributeNames(names)
                .expressionAttributeValues(boundAsValues(set))
                .returnValues(ReturnValue.ALL_OLD)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.conditionalUpdate(request, key, holds ? AccessPattern.INSERT_CODE : AccessPattern.KEEP_NEWEST_CODE,
                old -> new CodePlacement.Placed(replaced(code, old)),
                current -> {
                    if (holds && current.flatMap(CodeItems::slotCode).map(VerificationCode::digest)
                            .filter(code.digest()::equals).isPresent()) {
                        // An equal code of another request (a retry of this one passes the condition).
                        return new CodePlacement.KeyTaken();
                    }
                    // A newer code is current: this one lost, and its LINK item goes.
                    if (!holds) {
                        deleteItemReturning(code.digest(), AccessPattern.KEEP_NEWEST_CODE);
                    }
                    return new CodePlacement.Placed(List.of(code));
                });
    }

    /**
     * What the slot's write replaced, as its old image shows: the code it held (overwritten with the write), or the
     * item it named (deleted now); nothing when it named this very code (a retry whose first answer was lost: what
     * the first try replaced is not known any more, and it is unusable either way).
     */
    private List<VerificationCode> replaced(VerificationCode code, Map<String, Object> old) {
        Optional<String> named = CodeItems.currentDigest(old);
        if (named.isEmpty() || named.get().equals(code.digest())) {
            return List.of();
        }
        Optional<VerificationCode> held = CodeItems.slotCode(old);
        if (held.isPresent()) {
            return List.of(held.get());
        }
        return deleteItemReturning(named.get(), AccessPattern.KEEP_NEWEST_CODE).stream().toList();
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return table.getItem(TableKeys.code(digest), AccessPattern.VALIDATE_CODE).map(CodeItems::code);
    }

    @Override
    public Optional<VerificationCode> findCurrentCode(String userId, CodeType codeType, String digest) {
        Optional<Map<String, Object>> slot = table.getItem(TableKeys.currentCode(userId, codeType),
                AccessPattern.VALIDATE_CODE);
        Optional<VerificationCode> held = slot.flatMap(CodeItems::slotCode).filter(code -> code.digest().equals(digest));
        if (held.isPresent() || slot.flatMap(CodeItems::currentDigest).filter(digest::equals).isEmpty()) {
            return held;
        }
        // The slot names an item the previous release wrote.
        return findCode(digest);
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        if (consumption.format() == CodeFormat.NUMERIC) {
            DynamoDbAttempts.Outcome outcome = DynamoDbAttempts.run(table, slotConsumeWrite(consumption));
            boolean namesAnItem = outcome instanceof DynamoDbAttempts.Outcome.Refused refused && refused.current()
                    .filter(slot -> CodeItems.slotCode(slot).isEmpty())
                    .flatMap(CodeItems::currentDigest).filter(consumption.digest()::equals).isPresent();
            if (!namesAnItem) {
                return outcome.answer(ConsumeOutcome.Consumed::new, current -> new ConsumeOutcome.Rejected(
                        current.flatMap(CodeItems::slotCode).filter(code -> code.digest().equals(consumption.digest()))));
            }
            // The slot names a NUMERIC code the previous release wrote as an item: consumed as such, under an
            // attempt id of its own, since DynamoDB keeps the refused transaction's token.
            return DynamoDbAttempts.run(table, itemConsumeWrite(consumption, consumption.attemptId() + ".item"))
                    .answer(ConsumeOutcome.Consumed::new,
                            current -> new ConsumeOutcome.Rejected(current.map(CodeItems::code)));
        }
        return DynamoDbAttempts.run(table, itemConsumeWrite(consumption, consumption.attemptId())).answer(ConsumeOutcome.Consumed::new,
                current -> new ConsumeOutcome.Rejected(current.map(CodeItems::code)));
    }

    /** The consume's {@code send}-th request, with the give-back only while {@code giveBack}. */
    TransactWriteItemsRequest consumeRequest(CodeConsumption consumption, boolean giveBack, int send) {
        return (consumption.format() == CodeFormat.NUMERIC ? slotConsumeWrite(consumption)
                : itemConsumeWrite(consumption, consumption.attemptId())).request(table, giveBack, send);
    }

    /**
     * The one transaction of a successful NUMERIC verification: the code in the slot marked used (and stamped with
     * the attempt id in {@code consumedBy}) on the consumable condition, its CODE_VERIFIED entry and the give-back.
     * The slot is its own guard: a newer code overwrote it, an invalidation removed it.
     */
    private DynamoDbAttempts.Write slotConsumeWrite(CodeConsumption consumption) {
        TableKeys.PrimaryKey key = TableKeys.currentCode(consumption.userId(), consumption.codeType());
        Map<String, String> names = new HashMap<>(Map.of("#isUsed", ItemAttributes.IS_USED,
                "#expiresAt", ItemAttributes.EXPIRES_AT, "#consumedBy", ItemAttributes.CONSUMED_BY,
                "#userId", ItemAttributes.USER_ID, "#current", ItemAttributes.CURRENT, "#code", ItemAttributes.CODE,
                "#contextDigest", ItemAttributes.CONTEXT_DIGEST));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":true", bool(true), ":false", bool(false),
                ":now", n(consumption.now().getEpochSecond()), ":attemptId", s(consumption.attemptId()),
                ":userId", s(consumption.userId()), ":digest", s(consumption.digest())));
        consumption.contextDigest().ifPresent(digest -> values.put(":contextDigest", s(digest)));
        TransactWriteItem markUsed = DynamoDbAttempts.conditionedUpdate(table, key, Update.builder()
                .updateExpression(MARK_USED)
                .conditionExpression(SLOT_CODE_IS_CONSUMABLE
                        + (consumption.contextDigest().isPresent() ? AND_SAME_CONTEXT : AND_NO_CONTEXT))
                .expressionAttributeNames(names)
                .expressionAttributeValues(values));
        return new DynamoDbAttempts.Write(AccessPattern.CONSUME_CODE, CONSUME_NAMING, consumption.attemptId(),
                List.of(markUsed), List.of(table.conditionalPut(table.auditItem(consumption.verified()))),
                consumption.placeToGiveBack(), Optional.empty(),
                DynamoDbAttempts.Mark.stamped(key, consumption.attemptId(), ItemAttributes.CONSUMED_BY,
                        current -> current.flatMap(CodeItems::slotCode)
                                .filter(code -> code.digest().equals(consumption.digest()) && !code.used()).isEmpty()));
    }

    private static final DynamoDbAttempts.Naming CONSUME_NAMING = new DynamoDbAttempts.Naming("consume a code",
            "verification", "; retry the verification", StoreException.Kind.FAILED);

    /**
     * The one transaction of a successful verification of a code stored as an item: the code marked used (and
     * stamped with the attempt id in {@code consumedBy}) on the consumable condition, its CODE_VERIFIED entry, for a
     * NUMERIC code the give-back, and the slot's ConditionCheck as the guard (another code of the user and type is
     * current, or the codes were invalidated: this one is as good as deleted, whether or not its deletion has
     * happened yet). After a conflict, a code another attempt used is rejected.
     */
    private DynamoDbAttempts.Write itemConsumeWrite(CodeConsumption consumption, String attemptId) {
        TableKeys.PrimaryKey key = TableKeys.code(consumption.digest());
        Map<String, String> names = new HashMap<>(Map.of("#isUsed", ItemAttributes.IS_USED, "#ttl", ItemAttributes.TTL,
                "#consumedBy", ItemAttributes.CONSUMED_BY, "#userId", ItemAttributes.USER_ID,
                "#codeType", ItemAttributes.CODE_TYPE, "#contextDigest", ItemAttributes.CONTEXT_DIGEST));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":true", bool(true), ":false", bool(false),
                ":now", n(consumption.now().getEpochSecond()), ":attemptId", s(attemptId),
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
        return new DynamoDbAttempts.Write(AccessPattern.CONSUME_CODE, CONSUME_NAMING, attemptId,
                List.of(markUsed),
                List.of(table.conditionalPut(table.auditItem(consumption.verified()))),
                consumption.placeToGiveBack(), Optional.of(isCurrent),
                DynamoDbAttempts.Mark.stamped(key, attemptId, ItemAttributes.CONSUMED_BY,
                        current -> current.map(CodeItems::code).filter(VerificationCode::used).isPresent()));
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        TableKeys.PrimaryKey slot = TableKeys.currentCode(userId, codeType);
        Map<String, AttributeValue> values = format.map(only -> Map.of(":currentFormat", s(only.name())))
                .orElse(Map.of());
        // First the slot, on the table itself: from here on no code of the user and type is consumed.
        Optional<Map<String, Object>> old = clearSlot(slot, HAS_CURRENT + (format.isPresent() ? AND_CURRENT_FORMAT : ""),
                values, AccessPattern.INVALIDATE_CODES);
        Optional<String> current = old.flatMap(CodeItems::currentDigest);
        Optional<VerificationCode> held = old.flatMap(CodeItems::slotCode);
        List<VerificationCode> deleted = new ArrayList<>(held.isPresent() ? List.of(held.get()) : current
                .flatMap(digest -> deleteItemReturning(digest, AccessPattern.INVALIDATE_CODES)).stream().toList());
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

    /**
     * Removes the slot's current code and the code it holds, on {@code condition}; {@code currentAt} stays, so an
     * older code in flight cannot take over. The slot as it was, or empty when the condition failed.
     */
    private Optional<Map<String, Object>> clearSlot(TableKeys.PrimaryKey slot, String condition,
                                                    Map<String, AttributeValue> values, AccessPattern pattern) {
        List<String> removed = new ArrayList<>(List.of(ItemAttributes.CURRENT, ItemAttributes.CURRENT_FORMAT));
        removed.addAll(CodeItems.INLINE_CODE);
        Map<String, String> names = new HashMap<>();
        removed.forEach(name -> names.put("#" + name, name));
        UpdateItemRequest.Builder builder = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(keyOf(slot))
                .updateExpression("REMOVE " + String.join(", ", removed.stream().map(name -> "#" + name).toList()))
                .conditionExpression(condition)
                .expressionAttributeNames(names)
                .returnValues(ReturnValue.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        if (!values.isEmpty()) {
            builder.expressionAttributeValues(values);
        }
        return table.conditionalUpdate(builder.build(), slot, pattern, Optional::of, notThere -> Optional.empty());
    }

    /** DeleteItem of a code's item by its key, returning what was deleted (nothing if it was gone). */
    private Optional<VerificationCode> deleteItemReturning(String digest, AccessPattern pattern) {
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
        List<VerificationCode> codes = new ArrayList<>(table.getItem(TableKeys.currentCode(userId, codeType),
                AccessPattern.FIND_CODES).flatMap(CodeItems::slotCode).stream().toList());
        table.queryIndexPrefix(TableKeys.user(userId), TableKeys.codesOfTypePrefix(codeType), Optional.empty(),
                AccessPattern.FIND_CODES).stream()
                .map(DynamoDbItems::fromAttributeValues).map(CodeItems::code).forEach(codes::add);
        codes.sort(Comparator.comparing(VerificationCode::createdAt));
        return codes;
    }

    @Override
    public void deleteCode(VerificationCode code) {
        boolean cleared = code.format() == CodeFormat.NUMERIC && clearSlot(
                TableKeys.currentCode(code.userId(), code.codeType()), HOLDS_CODE,
                Map.of(":code", s(code.digest())), AccessPattern.DELETE_CODE).isPresent();
        if (!cleared) {
            // A LINK code, or a NUMERIC one the previous release wrote as an item.
            deleteItemReturning(code.digest(), AccessPattern.DELETE_CODE);
        }
    }
}

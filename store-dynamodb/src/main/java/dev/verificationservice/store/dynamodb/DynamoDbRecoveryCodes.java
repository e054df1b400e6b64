package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.CONDITION_FAILED;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.TRANSACTION_CONFLICT;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.describeCancellation;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.reasonCode;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.RecoveryCodeItems;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * Recovery codes on DynamoDB: items {@code USER#<userId>} / {@code RECOVERY#<digest>}, the code only as its digest.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>read the current set: a consistent GetItem of the user's set marker ({@code USER#<userId>} /
 *   {@code RECOVERYSET}, one attribute, {@code setId});</li>
 *   <li>replace a set: one TransactWriteItems: a Delete of each voided code, a Put of each new one on
 *   {@value DynamoDbTable#KEY_IS_NEW}, the marker's Put of the new set id on {@value #SET_IS_READ} (with no set read:
 *   {@value #NO_SET_OR_THIS}) and, last, the {@code RECOVERY_CODES_ISSUED} entry's Put on {@value
 *   DynamoDbTable#KEY_IS_NEW}, under the entry's id as ClientRequestToken (the SDK's retry of a committed
 *   transaction is answered "done"). Outcomes: committed: done; cancelled with the entry's condition failed and the
 *   stored entry this very one: done (a later retry of a committed replacement, never a conflict with itself);
 *   cancelled with the marker's condition failed: another replacement came first, refused, nothing written;
 *   cancelled by a conflict with a running transaction only: sent again under a token of its own, up to {@value
 *   TransactionConflicts#MAX_CONFLICT_TRIES} times, then a StoreException; cancelled otherwise: a StoreException,
 *   nothing written. A set and its voided codes are at most a few dozen items, within the 100 a transaction
 *   takes;</li>
 *   <li>use a code: one attempt's transaction ({@link DynamoDbAttempts}, which has the algorithm): Update
 *   {@value #MARK_USED} on {@value #CODE_IS_UNUSED}, stamped in {@code usedBy}, the {@code RECOVERY_CODE_USED}
 *   entry, the give-back. Refused is Refused with the code as it is (gone, of another set, or used by another
 *   attempt); after a conflict, a code that shows used is settled;</li>
 *   <li>read: a consistent Query {@value DynamoDbAttempts#PK_BEGINS_WITH} of the user's codes; delete them: that
 *   Query, then BatchWriteItem deletes.</li>
 * </ul>
 */
final class DynamoDbRecoveryCodes implements RecoveryCodeRepository {

    static final String MARK_USED = "SET #isUsed = :true, #usedAt = :now, #usedBy = :attemptId";
    static final String CODE_IS_UNUSED = "attribute_exists(PK) AND #isUsed = :false AND #setId = :setId";
    /** The marker still names the set read, or already this replacement's (its own retry). */
    static final String SET_IS_READ = "#setId = :replaces OR #setId = :setId";
    static final String NO_SET_OR_THIS = "attribute_not_exists(PK) OR #setId = :setId";

    private final DynamoDbTable table;

    DynamoDbRecoveryCodes(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        return table.getItem(TableKeys.recoverySet(userId), AccessPattern.ISSUE_RECOVERY_CODES)
                .map(RecoveryCodeItems::recoverySetId);
    }

    @Override
    public boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        String userId = replacement.userId();
        AuditEntry issuedEntry = replacement.issuedEntry();
        List<TransactWriteItem> items = new ArrayList<>();
        for (RecoveryCode code : replacement.voided()) {
            items.add(TransactWriteItem.builder().delete(Delete.builder().tableName(table.tableName)
                    .key(keyOf(TableKeys.recoveryCode(userId, code.digest()))).build()).build());
        }
        for (RecoveryCode code : replacement.issued()) {
            items.add(table.conditionalPut(RecoveryCodeItems.recoveryCodeItem(code)));
        }
        int marker = items.size();
        items.add(markerMoves(replacement));
        int entry = items.size();
        items.add(table.conditionalPut(table.auditItem(issuedEntry)));
        for (int send = 1; ; send++) {
            TransactWriteItemsRequest request = TransactWriteItemsRequest.builder()
                    .transactItems(items)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                    .clientRequestToken(TransactionConflicts.clientRequestToken(issuedEntry.entryId(), send))
                    .build();
            try {
                table.capacity.record(AccessPattern.ISSUE_RECOVERY_CODES, WRITE,
                        TransactionConflicts.settled(table.client, request).consumedCapacity());
                return true;
            } catch (TransactionCanceledException e) {
                table.capacity.recordFailedWrite(AccessPattern.ISSUE_RECOVERY_CODES, request.transactItems().size());
                List<CancellationReason> reasons = e.cancellationReasons();
                if (CONDITION_FAILED.equals(reasonCode(reasons, entry))
                        && table.getItem(TableKeys.auditEntry(issuedEntry.userId(), issuedEntry.timestamp(),
                        issuedEntry.entryId()), AccessPattern.ISSUE_RECOVERY_CODES)
                        .filter(stored -> AuditItems.isSameAuditEntry(stored, issuedEntry)).isPresent()) {
                    // The entry is written only with the whole set: this replacement committed before, its answer lost.
                    return true;
                }
                if (CONDITION_FAILED.equals(reasonCode(reasons, marker))) {
                    return false;
                }
                boolean conflictOnly = e.hasCancellationReasons() && reasons.stream().map(CancellationReason::code)
                        .allMatch(code -> code == null || "None".equals(code) || TRANSACTION_CONFLICT.equals(code));
                if (!conflictOnly || send >= TransactionConflicts.MAX_CONFLICT_TRIES) {
                    throw new StoreException("the recovery-code replacement was cancelled and nothing was written: "
                            + describeCancellation(request, reasons) + "; issue the codes again", e);
                }
                // Met a running transaction (a simultaneous replacement, say): nothing written, so send it again.
                TransactionConflicts.pause(send);
            } catch (SdkException e) {
                throw table.failure("replace recovery codes (TransactWriteItems; nothing was written)", e);
            }
        }
    }

    /** The marker's Put of the new set, on the condition that it still names the set read (or this one). */
    private TransactWriteItem markerMoves(RecoveryCodeReplacement replacement) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":setId", s(replacement.setId())));
        replacement.replaces().ifPresent(read -> values.put(":replaces", s(read)));
        return TransactWriteItem.builder().put(Put.builder()
                .tableName(table.tableName)
                .item(DynamoDbItems.toAttributeValues(RecoveryCodeItems.recoverySetItem(replacement.userId(),
                        replacement.setId())))
                .conditionExpression(replacement.replaces().isPresent() ? SET_IS_READ : NO_SET_OR_THIS)
                .expressionAttributeNames(Map.of("#setId", ItemAttributes.SET_ID))
                .expressionAttributeValues(values)
                .build()).build();
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        return DynamoDbAttempts.userItems(table, userId, TableKeys.recoveryCodesPrefix(),
                        AccessPattern.FIND_RECOVERY_CODES)
                .stream().map(DynamoDbItems::fromAttributeValues).map(RecoveryCodeItems::recoveryCode).toList();
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        Update.Builder update = Update.builder()
                .updateExpression(MARK_USED)
                .conditionExpression(CODE_IS_UNUSED)
                .expressionAttributeNames(Map.of("#isUsed", ItemAttributes.IS_USED, "#usedAt", ItemAttributes.USED_AT,
                        "#usedBy", ItemAttributes.USED_BY, "#setId", ItemAttributes.SET_ID))
                .expressionAttributeValues(Map.of(":true", bool(true), ":false", bool(false),
                        ":now", s(Timestamps.format(use.now())), ":attemptId", s(use.attemptId()),
                        ":setId", s(use.setId())));
        return DynamoDbAttempts.run(table, AccessPattern.USE_RECOVERY_CODE,
                "recovery-code use", TableKeys.recoveryCode(use.userId(), use.digest()), update, use.used(),
                use.placeToGiveBack(), use.attemptId(), ItemAttributes.USED_BY,
                current -> TableItems.bool(current, ItemAttributes.IS_USED)).answer(RecoveryUseOutcome.Used::new,
                current -> new RecoveryUseOutcome.Refused(current.map(RecoveryCodeItems::recoveryCode)));
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        List<Map<String, AttributeValue>> items = DynamoDbAttempts.userItems(table, userId,
                TableKeys.recoveryCodesPrefix(), AccessPattern.DELETE_RECOVERY_CODES);
        table.deleteAll(items, AccessPattern.DELETE_RECOVERY_CODES);
        return items.stream().map(DynamoDbItems::fromAttributeValues).map(RecoveryCodeItems::recoveryCode).toList();
    }
}

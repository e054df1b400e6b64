package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.CONDITION_FAILED;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.TRANSACTION_CONFLICT;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.describeCancellation;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.reasonCode;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.TableKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * What the TOTP and recovery-code writes share on DynamoDB: the Query of one kind of item in a user's partition, and
 * the one transaction of an attempt that uses something up (a time step accepted, a factor confirmed, a recovery code
 * used).
 *
 * <p>That transaction is: item 0 the conditioned Update (its condition is the rule; ALL_OLD on failure), item 1 the
 * audit entry's Put on {@value DynamoDbTable#KEY_IS_NEW}, item 2 (when the attempt holds a counted place) the
 * give-back {@value DynamoDbCounters#GIVE_PLACE_BACK} on {@value DynamoDbCounters#PLACE_IS_HELD}. Its outcomes:
 * <ul>
 *   <li>committed: written;</li>
 *   <li>item 0's condition failed and the item's attempt attribute ({@code acceptedBy}, {@code usedBy}) is this
 *   attempt: written (this attempt's transaction was applied before and its answer lost; the audit entry and the
 *   give-back are there too); failed otherwise: refused, with the item as it is;</li>
 *   <li>only the give-back's condition failed (the window's counter was reset meanwhile): sent again without it;</li>
 *   <li>TransactionConflict (another transaction on one of the items, most often a concurrent attempt on the same
 *   item): the item is read consistently; this attempt's own write, or an item another attempt has settled (the
 *   caller's {@code settled}), ends it; otherwise it is sent again after a pause, up to
 *   {@value TransactionConflicts#MAX_CONFLICT_TRIES} times;</li>
 *   <li>anything else, the audit key taken included: a StoreException, nothing written.</li>
 * </ul>
 * The first send's ClientRequestToken is the attempt id, so the SDK's retry of a committed transaction is answered
 * "done"; each different request has a token of its own ({@link TransactionConflicts}).
 */
final class DynamoDbAttempts {

    static final String PK_BEGINS_WITH = "PK = :pk AND begins_with(SK, :prefix)";

    private DynamoDbAttempts() {
    }

    /** The outcome of one attempt's transaction. */
    sealed interface Outcome {
        record Written() implements Outcome {
        }

        record Refused(Optional<Map<String, Object>> current) implements Outcome {
        }
    }

    /**
     * One attempt's transaction, as the class says.
     *
     * @param conditioned the Update of item 0, without its table, key and failure return values
     * @param attemptAttribute the item's attribute that names the attempt which wrote it
     * @param settled       whether the item as read after a conflict is past this attempt's chance (refused)
     */
    static Outcome run(DynamoDbTable table, AccessPattern pattern, String what, TableKeys.PrimaryKey key,
                       Update.Builder conditioned, AuditEntry entry, Optional<Place> place, String attemptId,
                       String attemptAttribute, Predicate<Map<String, Object>> settled) {
        Update update = conditioned.tableName(table.tableName).key(keyOf(key))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
        Predicate<Map<String, Object>> ownWrite = item -> attemptId.equals(item.get(attemptAttribute));
        boolean giveBack = place.flatMap(Place::attemptId).isPresent();
        for (int send = 1; ; send++) {
            TransactWriteItemsRequest request = request(table, update, entry, giveBack ? place : Optional.empty(),
                    attemptId, send);
            try {
                table.capacity.record(pattern, WRITE,
                        TransactionConflicts.settled(table.client, request).consumedCapacity());
                return new Outcome.Written();
            } catch (TransactionCanceledException e) {
                table.capacity.record(pattern, WRITE, List.of());
                List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
                if (CONDITION_FAILED.equals(reasonCode(reasons, 0))) {
                    Optional<Map<String, Object>> current = reasons.get(0).hasItem() && !reasons.get(0).item().isEmpty()
                            ? Optional.of(DynamoDbItems.fromAttributeValues(reasons.get(0).item()))
                            : table.conditionFailureReturnsItem ? Optional.empty() : table.getItem(key, pattern);
                    return current.filter(ownWrite).isPresent() ? new Outcome.Written() : new Outcome.Refused(current);
                }
                if (giveBack && CONDITION_FAILED.equals(reasonCode(reasons, 2))) {
                    // The place to give back is gone (the window's counter was reset meanwhile): write without it.
                    giveBack = false;
                    continue;
                }
                if (reasons.stream().anyMatch(reason -> TRANSACTION_CONFLICT.equals(reason.code()))
                        && send < TransactionConflicts.MAX_CONFLICT_TRIES) {
                    // Nothing was written. Most often another attempt on the same item was committing: once it has,
                    // the item says so and this attempt is over; otherwise the next try, after a pause.
                    Optional<Map<String, Object>> current = table.getItem(key, pattern);
                    if (current.filter(ownWrite).isPresent()) {
                        return new Outcome.Written();
                    }
                    if (current.isEmpty() || settled.test(current.get())) {
                        return new Outcome.Refused(current);
                    }
                    TransactionConflicts.pause(send);
                    continue;
                }
                throw new StoreException("the " + what + " was cancelled and nothing was written: "
                        + describeCancellation(request, reasons) + "; retry it", e);
            } catch (SdkException e) {
                throw table.failure(what, e);
            }
        }
    }

    private static TransactWriteItemsRequest request(DynamoDbTable table, Update update, AuditEntry entry,
                                                     Optional<Place> place, String attemptId, int send) {
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(TransactWriteItem.builder().update(update).build());
        items.add(table.conditionalPut(AuditItems.auditItem(entry)));
        place.ifPresent(held -> items.add(DynamoDbCounters.giveBackItem(table, held)));
        return TransactWriteItemsRequest.builder()
                .transactItems(items)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .clientRequestToken(TransactionConflicts.clientRequestToken(attemptId, send))
                .build();
    }

    /**
     * The user's items of one kind ({@value #PK_BEGINS_WITH}), read consistently: they are on the table in the user's
     * partition, not behind the lagging GSI1, so a rule may read them.
     */
    static List<Map<String, AttributeValue>> userItems(DynamoDbTable table, String userId, String prefix,
                                                      AccessPattern pattern) {
        return table.query(QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression(PK_BEGINS_WITH)
                .expressionAttributeValues(Map.of(":pk", DynamoDbItems.s(TableKeys.user(userId)),
                        ":prefix", DynamoDbItems.s(prefix)))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build(), pattern, Integer.MAX_VALUE);
    }
}

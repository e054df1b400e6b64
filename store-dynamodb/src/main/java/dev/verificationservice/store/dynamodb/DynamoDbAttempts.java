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
import dev.verificationservice.table.TableKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
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
 * What the attempt writes share on DynamoDB: the Query of one kind of item in a user's partition, and the one
 * transaction of an attempt that uses something up (a code consumed, a time step accepted, a factor confirmed, a
 * recovery code used, a device token re-keyed), written by {@link #run(DynamoDbTable, Write)} alone.
 *
 * <p><b>The transaction</b> ({@link Write}, in this order): the conditioned items, whose conditions are the rule
 * (an Update on its condition with ALL_OLD on failure, or a Delete on its condition and the Put of the moved token on
 * {@value DynamoDbTable#KEY_IS_NEW}); the items that ride with them (the audit entry's Put on
 * {@value DynamoDbTable#KEY_IS_NEW}); when the attempt holds a counted place, the give-back
 * {@value DynamoDbCounters#GIVE_PLACE_BACK} on {@value DynamoDbCounters#PLACE_IS_HELD}; last, an optional guard
 * ConditionCheck (last, so the other items keep their places in the cancellation reasons). The first send's
 * ClientRequestToken is the attempt id, so the SDK's retry of a committed transaction is answered "done"; each
 * different request has a token of its own ({@link TransactionConflicts}).
 *
 * <p><b>Algorithm</b>, each send:
 * <ol>
 *   <li>send it through {@link TransactionConflicts#settled}; committed: written;</li>
 *   <li>a conditioned item's condition failed: the item that shows the attempt's write ({@link Mark}) is the one
 *   returned on failure, or read consistently (an engine that returns no old item, or a mark on another item);
 *   this attempt's own write there: written (its transaction was applied before and its answer lost; what rode
 *   with it is there too); otherwise refused, with the item as it is;</li>
 *   <li>the guard's condition failed: refused, with nothing to show;</li>
 *   <li>only the give-back's condition failed (the window's counter was reset meanwhile): sent again without it;</li>
 *   <li>TransactionConflict (another transaction on one of the items, most often a concurrent attempt on the same
 *   item): the marked item is read consistently where the mark says so; this attempt's own write: written; an item
 *   another attempt has settled: refused; otherwise sent again after a pause, up to
 *   {@value TransactionConflicts#MAX_CONFLICT_TRIES} sends in all;</li>
 *   <li>anything else, an audit key taken included: a StoreException, nothing written.</li>
 * </ol>
 */
final class DynamoDbAttempts {

    static final String PK_BEGINS_WITH = "PK = :pk AND begins_with(SK, :prefix)";

    private DynamoDbAttempts() {
    }

    /** The outcome of one attempt's transaction. */
    sealed interface Outcome {
        /** This outcome in a port's words: {@code written}, or {@code refused} of the item as it is. */
        default <T> T answer(Supplier<T> written, Function<Optional<Map<String, Object>>, T> refused) {
            return this instanceof Refused refusal ? refused.apply(refusal.current()) : written.get();
        }

        /** Written now, or before: then {@code shown} is the item as read that shows this attempt's write. */
        record Written(Optional<Map<String, Object>> shown) implements Outcome {
        }

        record Refused(Optional<Map<String, Object>> current) implements Outcome {
        }
    }

    /**
     * The item that shows whether the attempt's write is there.
     *
     * @param key      the item
     * @param returned whether the conditioned item is this item and returns it (ALL_OLD) when its condition fails
     * @param ownWrite whether the item as read holds this attempt's write
     * @param settled  after a conflict, whether the item as read (or its absence) is past this attempt's chance;
     *                 none: nothing is read after a conflict, the transaction is sent again
     */
    record Mark(TableKeys.PrimaryKey key, boolean returned, Predicate<Map<String, Object>> ownWrite,
                Optional<Predicate<Optional<Map<String, Object>>>> settled) {

        /** The conditioned Update's own item, stamped with the attempt id in {@code attemptAttribute}. */
        static Mark stamped(TableKeys.PrimaryKey key, String attemptId, String attemptAttribute,
                            Predicate<Optional<Map<String, Object>>> settled) {
            return new Mark(key, true, item -> attemptId.equals(item.get(attemptAttribute)), Optional.of(settled));
        }
    }

    /**
     * How a failure names the write.
     *
     * @param operation what {@link DynamoDbTable#failure} names
     * @param cancelled what a cancellation's message names, after "the"
     * @param retry     the advice that ends a cancellation's message
     * @param kind      the cancellation's kind
     */
    record Naming(String operation, String cancelled, String retry, StoreException.Kind kind) {

        static Naming of(String what) {
            return new Naming(what, what, "; retry it", StoreException.Kind.FAILED);
        }
    }

    /**
     * One attempt's transaction, as the class says.
     *
     * @param pattern     whose capacity it is
     * @param naming      how its failures name it
     * @param attemptId   the attempt, the first send's ClientRequestToken
     * @param conditioned the items whose conditions are the rule, first
     * @param riding      the items written with them on conditions of their own (a failure: a StoreException)
     * @param place       the place to give back, if the attempt holds a counted one
     * @param guard       the last item, whose failed condition refuses the attempt with nothing to show
     * @param mark        the item that shows whether this attempt's write is there
     */
    record Write(AccessPattern pattern, Naming naming, String attemptId, List<TransactWriteItem> conditioned,
                 List<TransactWriteItem> riding, Optional<Place> place, Optional<TransactWriteItem> guard, Mark mark) {

        /** The {@code send}-th request, with the give-back only while {@code giveBack}. */
        TransactWriteItemsRequest request(DynamoDbTable table, boolean giveBack, int send) {
            List<TransactWriteItem> items = new ArrayList<>(conditioned);
            items.addAll(riding);
            if (giveBack && place.flatMap(Place::attemptId).isPresent()) {
                items.add(DynamoDbCounters.giveBackItem(table, place.orElseThrow()));
            }
            guard.ifPresent(items::add);
            return TransactWriteItemsRequest.builder()
                    .transactItems(items)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                    .clientRequestToken(TransactionConflicts.clientRequestToken(attemptId, send))
                    .build();
        }
    }

    /** The conditioned Update of {@code key}, returning the item as it is when its condition fails. */
    static TransactWriteItem conditionedUpdate(DynamoDbTable table, TableKeys.PrimaryKey key, Update.Builder update) {
        return TransactWriteItem.builder().update(update.tableName(table.tableName).key(keyOf(key))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build()).build();
    }

    /**
     * The usual attempt: the conditioned Update of {@code key} stamped with the attempt id in
     * {@code attemptAttribute}, its audit entry and the give-back.
     *
     * @param conditioned the Update, without its table, key and failure return values
     * @param settled     whether the item as read after a conflict is past this attempt's chance (refused); an
     *                    item gone is too
     */
    static Outcome run(DynamoDbTable table, AccessPattern pattern, String what, TableKeys.PrimaryKey key,
                       Update.Builder conditioned, AuditEntry entry, Optional<Place> place, String attemptId,
                       String attemptAttribute, Predicate<Map<String, Object>> settled) {
        return run(table, new Write(pattern, Naming.of(what), attemptId,
                List.of(conditionedUpdate(table, key, conditioned)),
                List.of(table.conditionalPut(table.auditItem(entry))), place, Optional.empty(),
                Mark.stamped(key, attemptId, attemptAttribute, current -> current.isEmpty() || settled.test(current.get()))));
    }

    /** One attempt's transaction, sent as the class says until its outcome is certain. */
    static Outcome run(DynamoDbTable table, Write write) {
        Mark mark = write.mark();
        boolean giveBack = write.place().flatMap(Place::attemptId).isPresent();
        for (int send = 1; ; send++) {
            TransactWriteItemsRequest request = write.request(table, giveBack, send);
            try {
                table.capacity.record(write.pattern(), WRITE,
                        TransactionConflicts.settled(table.client, request).consumedCapacity());
                return new Outcome.Written(Optional.empty());
            } catch (TransactionCanceledException e) {
                table.capacity.recordFailedWrite(write.pattern(), request.transactItems().size());
                List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
                if (anyFailed(reasons, write.conditioned().size())) {
                    Optional<Map<String, Object>> current = mark.returned() && reasons.get(0).hasItem()
                            && !reasons.get(0).item().isEmpty()
                            ? Optional.of(DynamoDbItems.fromAttributeValues(reasons.get(0).item()))
                            : mark.returned() && table.conditionFailureReturnsItem ? Optional.empty()
                            : table.getItem(mark.key(), write.pattern());
                    return current.filter(mark.ownWrite()).isPresent()
                            ? new Outcome.Written(current) : new Outcome.Refused(current);
                }
                if (write.guard().isPresent()
                        && CONDITION_FAILED.equals(reasonCode(reasons, request.transactItems().size() - 1))) {
                    return new Outcome.Refused(Optional.empty());
                }
                int giveBackIndex = write.conditioned().size() + write.riding().size();
                if (giveBack && CONDITION_FAILED.equals(reasonCode(reasons, giveBackIndex))) {
                    // The place to give back is gone (the window's counter was reset meanwhile): write without it.
                    giveBack = false;
                    continue;
                }
                if (reasons.stream().anyMatch(reason -> TRANSACTION_CONFLICT.equals(reason.code()))
                        && send < TransactionConflicts.MAX_CONFLICT_TRIES) {
                    // Nothing was written. Most often another attempt on the same item was committing: once it has,
                    // the item says so and this attempt is over; otherwise the next try, after a pause.
                    if (mark.settled().isPresent()) {
                        Optional<Map<String, Object>> current = table.getItem(mark.key(), write.pattern());
                        if (current.filter(mark.ownWrite()).isPresent()) {
                            return new Outcome.Written(current);
                        }
                        if (mark.settled().get().test(current)) {
                            return new Outcome.Refused(current);
                        }
                    }
                    TransactionConflicts.pause(send);
                    continue;
                }
                throw new StoreException(write.naming().kind(), "the " + write.naming().cancelled()
                        + " was cancelled and nothing was written: " + describeCancellation(request, reasons)
                        + write.naming().retry(), e);
            } catch (SdkException e) {
                throw table.failure(write.naming().operation(), e);
            }
        }
    }

    /** Whether the condition of one of the first {@code count} items failed. */
    private static boolean anyFailed(List<CancellationReason> reasons, int count) {
        for (int index = 0; index < count; index++) {
            if (CONDITION_FAILED.equals(reasonCode(reasons, index))) {
                return true;
            }
        }
        return false;
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

package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.bool;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.describeCancellation;
import static dev.verificationservice.store.dynamodb.DynamoDbTable.keyOf;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import dev.verificationservice.table.TotpItems;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpRepository;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * Authenticator-app factors on DynamoDB: items {@code USER#<userId>} / {@code TOTP#<factorId>}.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>enrol (the cap): a consistent GetItem of the user's enrolment counter ({@code USER#<userId>} /
 *   {@code TOTPENROLMENTS}, one number, {@code version}), then the Query of the user's factors, whose live ones are
 *   counted; at the cap: refused, nothing written. Else one TransactWriteItems: Update the counter's version from the
 *   one read to the next ({@code attribute_not_exists(PK)} when there was none), the factor's and the
 *   {@code TOTP_ENROLLED} entry's Put, each on {@value DynamoDbTable#KEY_IS_NEW}, under the entry's id and the
 *   version read as ClientRequestToken (the SDK's retry after a lost answer is answered "done"). The counter's
 *   condition failed: another enrolment was written, so read and count again at once. It conflicted with a running
 *   transaction (which may fail too, writing nothing): read and count again after a pause with jitter, under a
 *   token of its own; {@value TransactionConflicts#MAX_CONFLICT_TRIES} rounds in a row without the version moving
 *   are a StoreException (busy, nothing written). Cancelled otherwise: a StoreException, nothing written. Deletes
 *   leave the counter alone: a count that still sees a deleted factor only refuses early;</li>
 *   <li>accept a step (the replay rule): one attempt's transaction ({@link DynamoDbAttempts}, which has the
 *   algorithm): Update {@value #ACCEPT_STEP} on {@value #STEP_IS_NEW}, stamped in {@code acceptedBy}, the
 *   {@code TOTP_VERIFIED} entry, the give-back. Refused is Refused with the factor as it is (gone, pending, or at
 *   this step or later); after a conflict, a factor that shows this step or a later one accepted is settled;</li>
 *   <li>confirm: the same transaction with {@value #CONFIRM} on {@value #IS_PENDING} ({@code TOTP_CONFIRMED});
 *   after a conflict, a factor confirmed by another attempt is Refused;</li>
 *   <li>with a re-sealed secret, both updates also set {@value #RESEAL} (rotation on use, in the same write);</li>
 *   <li>read: a consistent GetItem of one factor, a consistent Query {@value DynamoDbAttempts#PK_BEGINS_WITH} of
 *   the user's factors, each returned as stored (the domain compares a pending factor's ttl with its clock);</li>
 *   <li>delete one: DeleteItem returning the old item; all: that Query, then BatchWriteItem deletes.</li>
 * </ul>
 */
final class DynamoDbTotpFactors implements TotpRepository {

    static final String ACCEPT_STEP = "SET #lastAcceptedStep = :step, #acceptedBy = :attemptId, #lastUsedAt = :now";
    static final String STEP_IS_NEW = "attribute_exists(PK) AND #confirmed = :true AND #lastAcceptedStep < :step";
    static final String CONFIRM = "SET #confirmed = :true, #lastAcceptedStep = :step, #acceptedBy = :attemptId";
    static final String REMOVE_TTL = " REMOVE #ttl";
    static final String IS_PENDING = "attribute_exists(PK) AND #confirmed = :false AND #ttl > :nowSeconds";
    static final String RESEAL = ", #secretKeyId = :secretKeyId, #secretNonce = :secretNonce,"
            + " #secretCiphertext = :secretCiphertext";

    private final DynamoDbTable table;

    DynamoDbTotpFactors(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors) {
        TableKeys.PrimaryKey counterKey = TableKeys.totpEnrolments(factor.userId());
        long lastSeen = -1;
        int stalled = 0;
        // A round lost to the counter's condition is another's enrolment written, which the next read sees; one lost
        // to a conflict may be nobody's (the running transaction may fail too), so it waits before the next.
        for (int round = 0; round < (maxFactors + 1) * TransactionConflicts.MAX_CONFLICT_TRIES; round++) {
            // The version first, then the factors: an enrolment this count misses moves the version past it.
            long seen = table.getItem(counterKey, AccessPattern.ENROL_TOTP)
                    .map(item -> TableItems.number(item, ItemAttributes.VERSION)).orElse(0L);
            stalled = seen > lastSeen ? 0 : stalled + 1;
            lastSeen = seen;
            if (stalled >= TransactionConflicts.MAX_CONFLICT_TRIES) {
                break;
            }
            long live = findFactors(factor.userId()).stream()
                    .filter(existing -> !existing.isExpiredAt(factor.createdAt())).count();
            if (live >= maxFactors) {
                return false;
            }
            TransactWriteItemsRequest request = TransactWriteItemsRequest.builder()
                    .transactItems(counterMoves(counterKey, seen),
                            table.conditionalPut(TotpItems.totpFactorItem(factor)),
                            table.conditionalPut(table.auditItem(enrolled)))
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                    // One token per request: the SDK's retry of this one is answered "done", a new one is new.
                    .clientRequestToken(TransactionConflicts.clientRequestToken(enrolled.entryId() + "-" + seen,
                            stalled + 1))
                    .build();
            try {
                table.capacity.record(AccessPattern.ENROL_TOTP, WRITE,
                        TransactionConflicts.settled(table.client, request).consumedCapacity());
                return true;
            } catch (TransactionCanceledException e) {
                if (!onlyTheCounterMoved(e)) {
                    throw new StoreException("the factor enrolment was cancelled and nothing was written: "
                            + describeCancellation(request, e.cancellationReasons()), e);
                }
                if (!counterConditionFailed(e)) {
                    TransactionConflicts.pause(stalled + 1);
                }
            } catch (SdkException e) {
                throw table.failure("enrol an authenticator factor (TransactWriteItems; nothing was written)", e);
            }
        }
        throw new StoreException("the factor enrolment kept meeting concurrent enrolments; nothing was written, retry");
    }

    /** Whether the counter's own condition failed: its version moved, so another enrolment was written. */
    private static boolean counterConditionFailed(TransactionCanceledException e) {
        return "ConditionalCheckFailed".equals(e.cancellationReasons().get(0).code());
    }

    /** The counter's Update: its version moves from the one the count was made at. */
    private TransactWriteItem counterMoves(TableKeys.PrimaryKey counterKey, long seen) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":next", n(seen + 1)));
        if (seen > 0) {
            values.put(":seen", n(seen));
        }
        return TransactWriteItem.builder().update(Update.builder()
                .tableName(table.tableName)
                .key(keyOf(counterKey))
                .updateExpression("SET #version = :next")
                .conditionExpression(seen > 0 ? "#version = :seen" : "attribute_not_exists(PK)")
                .expressionAttributeNames(Map.of("#version", ItemAttributes.VERSION))
                .expressionAttributeValues(values)
                .build()).build();
    }

    /** Whether the cancellation is the counter's condition or a conflict, and the factor's and entry's puts stood. */
    private static boolean onlyTheCounterMoved(TransactionCanceledException e) {
        if (!e.hasCancellationReasons() || e.cancellationReasons().size() != 3) {
            return false;
        }
        String counter = e.cancellationReasons().get(0).code();
        boolean rest = e.cancellationReasons().subList(1, 3).stream()
                .allMatch(reason -> reason.code() == null || "None".equals(reason.code())
                        || "TransactionConflict".equals(reason.code()));
        return rest && ("ConditionalCheckFailed".equals(counter) || "TransactionConflict".equals(counter));
    }

    @Override
    public List<TotpFactor> findFactors(String userId) {
        return DynamoDbAttempts.userItems(table, userId, TableKeys.totpFactorsPrefix(), AccessPattern.FIND_TOTP)
                .stream().map(DynamoDbItems::fromAttributeValues).map(TotpItems::totpFactor).toList();
    }

    @Override
    public Optional<TotpFactor> findFactor(String userId, String factorId) {
        return table.getItem(TableKeys.totpFactor(userId, factorId), AccessPattern.FIND_TOTP)
                .map(TotpItems::totpFactor);
    }

    @Override
    public StepOutcome confirmFactor(StepAcceptance confirmation) {
        Map<String, AttributeValue> values = values(confirmation);
        values.put(":false", bool(false));
        values.put(":nowSeconds", n(confirmation.now().getEpochSecond()));
        values.remove(":now");
        Map<String, String> names = names(confirmation);
        names.remove("#lastUsedAt");
        names.put("#ttl", ItemAttributes.TTL);
        Update.Builder update = Update.builder()
                .updateExpression(CONFIRM + (confirmation.resealed().isPresent() ? RESEAL : "") + REMOVE_TTL)
                .conditionExpression(IS_PENDING)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values);
        return outcome(DynamoDbAttempts.run(table, AccessPattern.CONFIRM_TOTP, "factor confirmation",
                key(confirmation), update, confirmation.entry(), confirmation.placeToGiveBack(),
                confirmation.attemptId(), ItemAttributes.ACCEPTED_BY, current -> TableItems.bool(current, ItemAttributes.CONFIRMED)));
    }

    @Override
    public StepOutcome acceptStep(StepAcceptance acceptance) {
        Update.Builder update = Update.builder()
                .updateExpression(ACCEPT_STEP + (acceptance.resealed().isPresent() ? RESEAL : ""))
                .conditionExpression(STEP_IS_NEW)
                .expressionAttributeNames(names(acceptance))
                .expressionAttributeValues(values(acceptance));
        return outcome(DynamoDbAttempts.run(table, AccessPattern.ACCEPT_TOTP_STEP, "TOTP step acceptance",
                key(acceptance), update, acceptance.entry(), acceptance.placeToGiveBack(), acceptance.attemptId(),
                ItemAttributes.ACCEPTED_BY,
                current -> TableItems.number(current, ItemAttributes.LAST_ACCEPTED_STEP) >= acceptance.step()));
    }

    private static TableKeys.PrimaryKey key(StepAcceptance write) {
        return TableKeys.totpFactor(write.userId(), write.factorId());
    }

    private static Map<String, String> names(StepAcceptance write) {
        Map<String, String> names = new HashMap<>(Map.of("#confirmed", ItemAttributes.CONFIRMED,
                "#lastAcceptedStep", ItemAttributes.LAST_ACCEPTED_STEP, "#acceptedBy", ItemAttributes.ACCEPTED_BY,
                "#lastUsedAt", ItemAttributes.LAST_USED_AT));
        if (write.resealed().isPresent()) {
            names.put("#secretKeyId", ItemAttributes.SECRET_KEY_ID);
            names.put("#secretNonce", ItemAttributes.SECRET_NONCE);
            names.put("#secretCiphertext", ItemAttributes.SECRET_CIPHERTEXT);
        }
        return names;
    }

    private static Map<String, AttributeValue> values(StepAcceptance write) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":true", bool(true), ":step", n(write.step()),
                ":attemptId", s(write.attemptId()), ":now", s(Timestamps.format(write.now()))));
        write.resealed().ifPresent(sealed -> values.putAll(resealedValues(sealed)));
        return values;
    }

    private static Map<String, AttributeValue> resealedValues(SealedSecret sealed) {
        return DynamoDbTable.boundAsValues(TotpItems.sealedSecretAttributes(sealed));
    }

    private static StepOutcome outcome(DynamoDbAttempts.Outcome outcome) {
        return outcome.answer(StepOutcome.Accepted::new,
                current -> new StepOutcome.Refused(current.map(TotpItems::totpFactor)));
    }

    @Override
    public List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        if (factorId.isPresent()) {
            var response = table.call("delete an authenticator factor", () -> TransactionConflicts.retryingConflicts(
                    () -> table.client.deleteItem(request -> request
                            .tableName(table.tableName)
                            .key(keyOf(TableKeys.totpFactor(userId, factorId.get())))
                            .returnValues(ReturnValue.ALL_OLD)
                            .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL))));
            table.capacity.record(AccessPattern.DELETE_TOTP, WRITE, response.consumedCapacity());
            return response.hasAttributes() && !response.attributes().isEmpty()
                    ? List.of(TotpItems.totpFactor(DynamoDbItems.fromAttributeValues(response.attributes())))
                    : List.of();
        }
        List<Map<String, AttributeValue>> items = DynamoDbAttempts.userItems(table, userId,
                TableKeys.totpFactorsPrefix(), AccessPattern.DELETE_TOTP);
        table.deleteAll(items, AccessPattern.DELETE_TOTP);
        return items.stream().map(DynamoDbItems::fromAttributeValues).map(TotpItems::totpFactor).toList();
    }
}

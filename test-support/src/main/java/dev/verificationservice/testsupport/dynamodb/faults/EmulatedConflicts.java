package dev.verificationservice.testsupport.dynamodb.faults;

import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.DYNAMODB_ERROR;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.error;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.madeUp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What running emulated transactions hold, and the answers that gives, as DynamoDB's (never kinder): from its start
 * until it answers a transaction holds its items and its ClientRequestToken ({@link RunningTransactions}); a plain
 * write on a held item answers {@code TransactionConflictException}. Also the test's {@link TransactionHold}s, which
 * keep matching transactions running until released.
 */
final class EmulatedConflicts {

    private final RunningTransactions running = new RunningTransactions();
    private final List<TransactionHold> holds = new CopyOnWriteArrayList<>();

    /** Starts holding the items and token of a transaction; see {@link RunningTransactions#start}. */
    RunningTransactions.Start start(List<RunningTransactions.Item> items, Optional<String> token) {
        return running.start(items, token);
    }

    /** Ends what {@link #start} began for {@code owner}. */
    void finish(Object owner) {
        running.finish(owner);
    }

    /** Keeps the transaction of this request body running while a hold that matches it is in force. */
    void holdIfMatching(String body) throws InterruptedException {
        for (TransactionHold hold : holds) {
            if (hold.matches(body)) {
                hold.hold();
            }
        }
    }

    /** Tells the holds in force that a request was turned away because a transaction is running. */
    void turnedAway() {
        holds.stream().filter(hold -> !hold.isReleased()).forEach(TransactionHold::turnedAway);
    }

    /** Keeps matching transactions running until the test releases them; see {@link TransactionHold}. */
    TransactionHold hold(String bodyContains) {
        TransactionHold hold = new TransactionHold(bodyContains);
        holds.add(hold);
        return hold;
    }

    /**
     * The answer to a plain write ({@code PutItem}, {@code UpdateItem}, {@code DeleteItem}, {@code BatchWriteItem})
     * when a running transaction holds one of its items: {@code TransactionConflictException}, as DynamoDB's
     * (the SDK does not retry it). Empty when the write may go to the engine.
     */
    Optional<Http.Message> conflictOf(String operation, Http.Message request) {
        if (!Set.of("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem").contains(operation)) {
            return Optional.empty();
        }
        boolean conflicts;
        try {
            Map<String, Object> body = Json.object(Json.parse(new String(request.body(), StandardCharsets.UTF_8)),
                    "the request");
            conflicts = "BatchWriteItem".equals(operation) ? batchConflicts(body)
                    : writeConflicts(String.valueOf(body.get("TableName")), body);
        } catch (Json.ParseException | RuntimeException e) {
            return Optional.empty(); // not a well-formed write: the engine answers it
        }
        if (!conflicts) {
            return Optional.empty();
        }
        turnedAway();
        return Optional.of(madeUp(400, "Bad Request", error(DYNAMODB_ERROR + "TransactionConflictException",
                "message", "Transaction is ongoing for the item")));
    }

    private boolean batchConflicts(Map<String, Object> body) throws Json.ParseException {
        for (Map.Entry<String, Object> table : Json.object(body.get("RequestItems"), "RequestItems").entrySet()) {
            for (Object write : (List<?>) table.getValue()) {
                Map<String, Object> request = Json.object(write, "a write request");
                Object put = request.get("PutRequest");
                Map<String, Object> one = Json.object(put != null ? put : request.get("DeleteRequest"), "request");
                if (writeConflicts(table.getKey(), one)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean writeConflicts(String table, Map<String, Object> write) throws Json.ParseException {
        if (write.get("Item") != null) {
            return running.isHeld(table, Json.object(write.get("Item"), "Item"));
        }
        return running.isHeld(RunningTransactions.Item.of(table, Json.object(write.get("Key"), "Key")));
    }
}

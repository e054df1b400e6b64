package dev.verificationservice.testsupport.dynamodb.faults;

import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Action;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Transaction;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The answers the {@link TransactionEmulator} makes up as DynamoDB gives them (success with its consumed capacity,
 * {@code TransactionCanceledException} with one reason per action, validation and other errors), and how it
 * reads the engine's answers to its single-item requests.
 */
final class TransactionAnswers {

    static final String CONDITION_FAILED = "ConditionalCheckFailed";
    static final String TRANSACTION_CONFLICT = "TransactionConflict";
    static final String NONE = "None";
    static final String THROTTLING_ERROR = "ThrottlingError";
    /** DynamoDB's message for a partition key over its limit, of a table or of an index. */
    static final String THROUGHPUT_EXCEEDED = "Throughput exceeds the current capacity of your table or index. "
            + "DynamoDB is automatically scaling your table or index so please try again shortly. "
            + "If exceptions persist, check if you have a hot key.";
    static final String DYNAMODB_ERROR = "com.amazonaws.dynamodb.v20120810#";
    static final String VALIDATION_ERROR = "com.amazon.coral.validate#ValidationException";
    static final String SERIALIZATION_ERROR = "com.amazon.coral.service#SerializationException";

    private TransactionAnswers() {
    }

    /** The answer to a transaction with items that running ones hold: TransactionConflict on those, nothing run. */
    static Http.Message conflictCancelled(int actions, Set<Integer> conflicting) {
        return cancelledAt(actions, conflicting, TRANSACTION_CONFLICT, "Transaction is ongoing for the item");
    }

    /**
     * DynamoDB's answer to a transaction an item's partition key (of the table or of an index) throttled: the whole
     * transaction cancelled, ThrottlingError on those actions, nothing run; the SDK does not retry it.
     */
    static Http.Message throttleCancelled(int actions, Set<Integer> throttled) {
        return cancelledAt(actions, throttled, THROTTLING_ERROR, THROUGHPUT_EXCEEDED);
    }

    private static Http.Message cancelledAt(int actions, Set<Integer> hit, String code, String message) {
        List<String> reasons = new ArrayList<>();
        List<Object> cancellationReasons = new ArrayList<>();
        for (int i = 0; i < actions; i++) {
            boolean isHit = hit.contains(i);
            reasons.add(isHit ? code : NONE);
            Map<String, Object> reason = new LinkedHashMap<>();
            reason.put("Code", reasons.get(i));
            if (isHit) {
                reason.put("Message", message);
            }
            cancellationReasons.add(reason);
        }
        return cancellation(reasons, cancellationReasons);
    }

    static Http.Message success(Transaction transaction, Map<String, BigDecimal> capacity) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (transaction.returnsCapacity()) {
            List<Object> consumed = new ArrayList<>();
            capacity.forEach((table, units) -> {
                Map<String, Object> perTable = new LinkedHashMap<>();
                perTable.put("TableName", table);
                perTable.put("CapacityUnits", units.doubleValue());
                consumed.add(perTable);
            });
            body.put("ConsumedCapacity", consumed);
        }
        return madeUp(200, "OK", body);
    }

    static Http.Message cancelled(List<Action> actions, List<Optional<Map<String, Object>>> snapshots,
                                          List<String> reasons) {
        List<Object> cancellationReasons = new ArrayList<>();
        for (int i = 0; i < reasons.size(); i++) {
            Map<String, Object> reason = new LinkedHashMap<>();
            reason.put("Code", reasons.get(i));
            if (CONDITION_FAILED.equals(reasons.get(i))) {
                reason.put("Message", "The conditional request failed");
                if (actions.get(i).returnsOldItem() && snapshots.get(i).isPresent()) {
                    reason.put("Item", snapshots.get(i).get());
                }
            }
            cancellationReasons.add(reason);
        }
        return cancellation(reasons, cancellationReasons);
    }

    static Http.Message cancellation(List<String> reasons, List<Object> cancellationReasons) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("__type", DYNAMODB_ERROR + "TransactionCanceledException");
        body.put("Message", "Transaction cancelled, please refer cancellation reasons for specific reasons "
                + "[" + String.join(", ", reasons) + "]");
        body.put("CancellationReasons", cancellationReasons);
        return madeUp(400, "Bad Request", body);
    }

    static Http.Message validationError(String message) {
        return madeUp(400, "Bad Request", error(VALIDATION_ERROR, "message", message));
    }

    static Map<String, Object> error(String type, String messageMember, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("__type", type);
        body.put(messageMember, message);
        return body;
    }

    /** An answer of the proxy's own: no {@code x-amz-crc32}, which the SDK checks only when present. */
    static Http.Message madeUp(int status, String reason, Map<String, Object> body) {
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        Http.Head head = new Http.Head("HTTP/1.1 " + status + " " + reason, List.of(
                new Http.Header("x-amzn-RequestId", DynamoDbFaultProxy.requestId()),
                new Http.Header("Content-Type", "application/x-amz-json-1.0"),
                new Http.Header("Content-Length", Integer.toString(bytes.length))));
        return new Http.Message(head, bytes);
    }

    static boolean isConditionFailure(Http.Message answer) throws IOException {
        return hasErrorType(answer, "#ConditionalCheckFailedException");
    }

    static boolean isCancellation(Http.Message answer) throws IOException {
        return hasErrorType(answer, "#TransactionCanceledException");
    }

    static boolean hasErrorType(Http.Message answer, String suffix) throws IOException {
        if (answer.head().status() != 400) {
            return false;
        }
        try {
            Object type = Json.object(Json.parse(new String(answer.body(), StandardCharsets.UTF_8)), "answer")
                    .get("__type");
            return type instanceof String text && text.endsWith(suffix);
        } catch (Json.ParseException e) {
            return false; // not DynamoDB JSON: passed on as the engine's answer
        }
    }

    static BigDecimal capacityUnits(Map<String, Object> answer) {
        if (answer.get("ConsumedCapacity") instanceof Map<?, ?> consumed
                && consumed.get("CapacityUnits") instanceof BigDecimal units) {
            return units;
        }
        return BigDecimal.ZERO;
    }

    static Map<String, Object> parse(Http.Message answer) throws IOException {
        try {
            return Json.object(Json.parse(new String(answer.body(), StandardCharsets.UTF_8)), "the engine's answer");
        } catch (Json.ParseException e) {
            throw new IOException("the engine's answer is not JSON: " + answer.head().startLine(), e);
        }
    }

    @SuppressWarnings("unchecked")
    static Optional<Map<String, Object>> optionalObject(Object value) {
        return value instanceof Map<?, ?> map && !map.isEmpty() ? Optional.of((Map<String, Object>) map)
                : Optional.empty();
    }
}

package dev.verificationservice.testsupport.dynamodb.faults;

import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.CONDITION_FAILED;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.NONE;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.cancelled;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.capacityUnits;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.isConditionFailure;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.optionalObject;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.parse;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.success;

import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Action;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.EngineAnswer;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Kind;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Transaction;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies the actions of an emulated transaction on the engine, on a connection of its own, with single-item
 * requests: each item read first with a consistent GetItem (its snapshot), each action sent in order, and on a
 * failed condition or any other error every item sent put back to its snapshot. See {@link TransactionEmulator}.
 */
final class TransactionApplier implements AutoCloseable {

    private final Upstream engine;
    /** Table name -> its key attributes (partition key first), as DescribeTable told. */
    private final Map<String, List<String>> keySchemas = new ConcurrentHashMap<>();

    TransactionApplier(InetSocketAddress engine) {
        this.engine = new Upstream(engine);
    }

    /** Sends this transaction's single-item requests with the client's request head. */
    Exchanger exchanger(Http.Head clientHead) {
        return new Exchanger(clientHead);
    }

    /** Applies the actions (the running transaction holds their items): its answer, success or cancellation. */
    Http.Message apply(Exchanger exchanger, List<Action> actions, Transaction transaction) throws IOException {
        List<Optional<Map<String, Object>>> snapshots = new ArrayList<>();
        for (Action action : actions) {
            Map<String, Object> get = new LinkedHashMap<>();
            get.put("TableName", action.table());
            get.put("Key", action.key());
            get.put("ConsistentRead", Boolean.TRUE);
            Http.Message answer = exchanger.send("GetItem", get);
            if (answer.head().status() != 200) {
                return answer;
            }
            snapshots.add(optionalObject(parse(answer).get("Item")));
        }

        List<String> reasons = new ArrayList<>();
        Map<String, BigDecimal> capacity = new LinkedHashMap<>();
        for (int i = 0; i < actions.size(); i++) {
            Action action = actions.get(i);
            Http.Message answer;
            try {
                answer = exchanger.send(action.operation(), action.singleItemRequest(transaction.returnsCapacity()));
                if (answer.head().status() == 200) {
                    reasons.add(NONE);
                    BigDecimal units = capacityUnits(parse(answer));
                    capacity.merge(action.table(), units.multiply(BigDecimal.valueOf(2)), BigDecimal::add);
                    if (action.kind() == Kind.CONDITION_CHECK) {
                        restore(exchanger, actions, snapshots, i, i + 1);
                    }
                    continue;
                }
                if (isConditionFailure(answer)) {
                    reasons.add(CONDITION_FAILED);
                    continue;
                }
            } catch (IOException | RuntimeException e) {
                // The engine may or may not have applied this action: restoring it too is right either way.
                restore(exchanger, actions, snapshots, i + 1);
                throw e;
            }
            restore(exchanger, actions, snapshots, i + 1);
            return answer;
        }
        if (reasons.contains(CONDITION_FAILED)) {
            restore(exchanger, actions, snapshots, actions.size());
            return cancelled(actions, snapshots, reasons);
        }
        return success(transaction, capacity);
    }

    @Override
    public void close() {
        engine.close();
    }

    List<String> keySchema(Exchanger exchanger, String table) throws IOException, EngineAnswer {
        List<String> known = keySchemas.get(table);
        if (known != null) {
            return known;
        }
        Http.Message answer = exchanger.send("DescribeTable", Map.of("TableName", table));
        if (answer.head().status() != 200) {
            throw new EngineAnswer(answer);
        }
        try {
            Map<String, Object> description = Json.object(parse(answer).get("Table"), "Table");
            List<String> hash = new ArrayList<>();
            List<String> range = new ArrayList<>();
            for (Object element : (List<?>) description.get("KeySchema")) {
                Map<String, Object> key = Json.object(element, "KeySchema element");
                ("HASH".equals(key.get("KeyType")) ? hash : range).add((String) key.get("AttributeName"));
            }
            hash.addAll(range);
            keySchemas.put(table, List.copyOf(hash));
            return List.copyOf(hash);
        } catch (Json.ParseException | RuntimeException e) {
            throw new IOException("the engine described table " + table + " in a way the emulation cannot read", e);
        }
    }

    /** Puts the items of {@code actions[from, to)} back as they were before the transaction. */
    private void restore(Exchanger exchanger, List<Action> actions, List<Optional<Map<String, Object>>> snapshots,
                         int from, int to) throws IOException {
        for (int i = to - 1; i >= from; i--) {
            Action action = actions.get(i);
            Map<String, Object> restoring = new LinkedHashMap<>();
            restoring.put("TableName", action.table());
            String operation;
            if (snapshots.get(i).isPresent()) {
                operation = "PutItem";
                restoring.put("Item", snapshots.get(i).get());
            } else {
                operation = "DeleteItem";
                restoring.put("Key", action.key());
            }
            Http.Message answer;
            try {
                answer = exchanger.send(operation, restoring);
            } catch (IOException e) {
                throw new IOException("the emulated transaction could not restore item " + (i + 1) + " of table "
                        + action.table() + " (" + Json.write(action.key()) + "): the engine now holds a partial "
                        + "transaction", e);
            }
            if (answer.head().status() != 200) {
                throw new IllegalStateException("the emulated transaction could not restore item " + (i + 1)
                        + " of table " + action.table() + " (" + Json.write(action.key()) + "); the engine answered "
                        + answer.head().startLine() + " " + new String(answer.body(), StandardCharsets.UTF_8));
            }
        }
    }

    private void restore(Exchanger exchanger, List<Action> actions, List<Optional<Map<String, Object>>> snapshots,
                         int count) throws IOException {
        restore(exchanger, actions, snapshots, 0, count);
    }

    /** Sends single-item requests to the engine with the client's request head (its signature is not checked). */
    final class Exchanger {
        private final Http.Head clientHead;
        private final String api;

        Exchanger(Http.Head clientHead) {
            this.clientHead = clientHead;
            String target = clientHead.header("X-Amz-Target").orElse("DynamoDB_20120810." + TransactionEmulator.OPERATION);
            this.api = target.contains(".") ? target.substring(0, target.lastIndexOf('.')) : "DynamoDB_20120810";
        }

        Http.Message send(String operation, Map<String, Object> body) throws IOException {
            byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
            Http.Head head = clientHead.without("X-Amz-Target").without("Content-Type").without("Content-Length")
                    .without("Transfer-Encoding").without("Expect").without("Connection")
                    .with("Content-Type", "application/x-amz-json-1.0")
                    .with("X-Amz-Target", api + "." + operation)
                    .with("Content-Length", Integer.toString(bytes.length));
            return engine.exchange(new Http.Message(head, bytes));
        }
    }
}

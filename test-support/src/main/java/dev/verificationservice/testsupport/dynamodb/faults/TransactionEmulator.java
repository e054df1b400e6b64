package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * {@code TransactWriteItems} for an engine without it (dynalite), made of the engine's own single-item
 * operations, so that the engine still evaluates every condition and update expression. See
 * {@link DynamoDbFaultProxy} for what this emulation is and is not; in short:
 * <ol>
 *   <li>the request is checked as DynamoDB checks it before doing anything (1 to 100 actions, each exactly one
 *   of Put, Update, Delete or ConditionCheck, no two on one item, a ClientRequestToken of 1 to 36 characters);</li>
 *   <li>a ClientRequestToken remembered from a completed transaction with the same request answers as it did
 *   (success, or the same cancellation) at once, with a different request
 *   {@code IdempotentParameterMismatchException}; a token of a running transaction
 *   {@code TransactionInProgressException}; an action on an item a running transaction holds cancels this one
 *   with reason {@code TransactionConflict};</li>
 *   <li>each item is read with a consistent GetItem: its snapshot;</li>
 *   <li>each action is sent in order as the single-item request (PutItem, UpdateItem, DeleteItem) with its own
 *   ConditionExpression, names, values and ReturnValuesOnConditionCheckFailure; a ConditionCheck is an UpdateItem
 *   with its condition and {@code REMOVE} of an attribute that never exists, and its item is put back to its
 *   snapshot at once (that UpdateItem creates a missing item);</li>
 *   <li>when a condition fails, the later actions still run, so that every item gets its reason as in
 *   DynamoDB's answer; then every item sent is put back to its snapshot (PutItem of the old item, or DeleteItem
 *   where there was none) and the answer is {@code TransactionCanceledException} with the reasons, and the old
 *   item for a failed condition that asked for {@code ALL_OLD};</li>
 *   <li>any other answer of the engine to an action (a ValidationException for a bad expression, say) is the
 *   answer, after the same restoring; if the engine cannot be reached meanwhile, restoring is tried all the same
 *   and the client connection closes.</li>
 * </ol>
 * Transactions run concurrently as on DynamoDB, with its conflicts ({@link RunningTransactions}): each holds its
 * items and token from its start until it answers, and is applied under the proxy's exclusive lock while every
 * other request it forwards holds the shared lock. The requests made here go to the engine on a connection of
 * their own; they are neither recorded nor hit by faults.
 */
final class TransactionEmulator implements AutoCloseable {

    static final String OPERATION = "TransactWriteItems";
    /** DynamoDB's limit on the actions of one transaction. */
    static final int MAX_ACTIONS = 100;
    /** DynamoDB's limit on the length of a ClientRequestToken. */
    static final int MAX_TOKEN_LENGTH = 36;

    static final String CONDITION_FAILED = "ConditionalCheckFailed";
    static final String TRANSACTION_CONFLICT = "TransactionConflict";
    private static final String NONE = "None";
    private static final String DYNAMODB_ERROR = "com.amazonaws.dynamodb.v20120810#";
    private static final String VALIDATION_ERROR = "com.amazon.coral.validate#ValidationException";
    private static final String SERIALIZATION_ERROR = "com.amazon.coral.service#SerializationException";
    /** The placeholder and attribute of a ConditionCheck's update: removing an attribute that never exists. */
    private static final String NEVER_PLACEHOLDER = "#faultProxyConditionCheck";
    private static final String NEVER_ATTRIBUTE = "fault-proxy-condition-check-never-stored";

    private final Upstream engine;
    private final Duration tokenMemory;
    private final LongSupplier nanoClock;
    /** ClientRequestToken -> the remembered request, of successful transactions; guarded by this. */
    private final Map<String, RememberedToken> tokens = new HashMap<>();
    private final RunningTransactions running = new RunningTransactions();
    private final List<TransactionHold> holds = new CopyOnWriteArrayList<>();
    /** Table name -> its key attributes (partition key first), as DescribeTable told. */
    private final Map<String, List<String>> keySchemas = new ConcurrentHashMap<>();

    TransactionEmulator(InetSocketAddress engine, Duration tokenMemory, LongSupplier nanoClock) {
        this.engine = new Upstream(engine);
        this.tokenMemory = tokenMemory;
        this.nanoClock = nanoClock;
    }

    /** Whether a completed transaction's ClientRequestToken is remembered at all. */
    boolean remembersTokens() {
        return !tokenMemory.isZero();
    }

    /**
     * Runs the transaction of the request and returns the answer DynamoDB would give. Its items and token are
     * held among the running transactions from its start until it answers; it is applied under {@code exclusive},
     * so that no request through the proxy sees it half done; a {@link TransactionHold} that matches keeps it
     * running, outside that lock, until the test releases it.
     */
    Http.Message execute(Http.Message request, Lock exclusive) throws IOException, InterruptedException {
        Map<String, Object> body;
        try {
            body = Json.object(Json.parse(new String(request.body(), StandardCharsets.UTF_8)), "the request");
        } catch (Json.ParseException e) {
            return madeUp(400, "Bad Request", error(SERIALIZATION_ERROR, "message", e.getMessage()));
        }
        Transaction transaction;
        try {
            transaction = Transaction.of(body);
        } catch (InvalidRequest e) {
            return validationError(e.getMessage());
        }

        Optional<Http.Message> remembered = remembered(transaction);
        if (remembered.isPresent()) {
            return remembered.get();
        }

        Exchanger exchanger = new Exchanger(request.head());
        List<Action> actions = new ArrayList<>();
        Set<String> targets = new HashSet<>();
        for (Map<String, Object> item : transaction.items()) {
            Action action;
            try {
                action = Action.of(item, table -> keySchema(exchanger, table));
            } catch (InvalidRequest e) {
                return validationError(e.getMessage());
            } catch (EngineAnswer e) {
                return e.answer;
            }
            if (!targets.add(action.table() + "\u0000" + Json.canonical(action.key()))) {
                return validationError("Transaction request cannot include multiple operations on one item");
            }
            actions.add(action);
        }

        RunningTransactions.Start start = running.start(
                actions.stream().map(action -> RunningTransactions.Item.of(action.table(), action.key())).toList(),
                transaction.token());
        if (!(start instanceof RunningTransactions.Start.Started)) {
            turnedAway();
        }
        if (start instanceof RunningTransactions.Start.InProgress) {
            return madeUp(400, "Bad Request", error(DYNAMODB_ERROR + "TransactionInProgressException", "Message",
                    "Transaction with the given request token is already in progress"));
        }
        if (start instanceof RunningTransactions.Start.Conflicts conflicts) {
            return conflictCancelled(actions.size(), conflicts.actions());
        }
        Object owner = ((RunningTransactions.Start.Started) start).owner();
        try {
            Http.Message answer;
            exclusive.lockInterruptibly();
            try {
                answer = apply(exchanger, actions, transaction);
            } finally {
                exclusive.unlock();
            }
            String text = new String(request.body(), StandardCharsets.UTF_8);
            for (TransactionHold hold : holds) {
                if (hold.matches(text)) {
                    hold.hold();
                }
            }
            remember(transaction, answer);
            return answer;
        } finally {
            running.finish(owner);
        }
    }

    /** Applies the actions (the running transaction holds their items): its answer, success or cancellation. */
    private Http.Message apply(Exchanger exchanger, List<Action> actions, Transaction transaction) throws IOException {
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

    // --------------------------------------------------------------------------------------- ClientRequestToken

    private synchronized Optional<Http.Message> remembered(Transaction transaction) {
        if (transaction.token().isEmpty() || !remembersTokens()) {
            return Optional.empty();
        }
        long now = nanoClock.getAsLong();
        tokens.values().removeIf(token -> now - token.rememberedAt() > tokenMemory.toNanos());
        RememberedToken token = tokens.get(transaction.token().get());
        if (token == null) {
            return Optional.empty();
        }
        if (!token.requestHash().equals(transaction.hash())) {
            return Optional.of(madeUp(400, "Bad Request", error(DYNAMODB_ERROR + "IdempotentParameterMismatchException",
                    "Message", "The request uses the same client token as a previous, but non-identical request.")));
        }
        if (token.cancellation().isPresent()) {
            // Unkind on purpose: DynamoDB documents the token's window only from "completed", not whether a
            // cancelled transaction's token runs again; here it answers the same cancellation, never running again.
            return token.cancellation();
        }
        // DynamoDB answers a repeated transaction with what reading its items cost instead of writing them.
        Map<String, BigDecimal> capacity = new LinkedHashMap<>();
        transaction.tables().forEach(table -> capacity.merge(table, BigDecimal.ONE, BigDecimal::add));
        return Optional.of(success(transaction, capacity));
    }

    /**
     * A completed transaction's token: after success, or after a cancellation for a failed condition (its answer is
     * kept); any other answer (a validation error of the engine) leaves it unknown.
     */
    private synchronized void remember(Transaction transaction, Http.Message answer) throws IOException {
        if (transaction.token().isEmpty() || !remembersTokens()) {
            return;
        }
        Optional<Http.Message> cancellation = Optional.empty();
        if (answer.head().status() != 200) {
            if (!isCancellation(answer)) {
                return;
            }
            cancellation = Optional.of(answer);
        }
        tokens.put(transaction.token().get(), new RememberedToken(transaction.hash(), nanoClock.getAsLong(), cancellation));
    }

    private record RememberedToken(String requestHash, long rememberedAt, Optional<Http.Message> cancellation) {
    }

    // -------------------------------------------------------------------------------------- running transactions

    private void turnedAway() {
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

    /** The answer to a transaction with items that running ones hold: TransactionConflict on those, nothing run. */
    private static Http.Message conflictCancelled(int actions, Set<Integer> conflicting) {
        List<String> reasons = new ArrayList<>();
        List<Object> cancellationReasons = new ArrayList<>();
        for (int i = 0; i < actions; i++) {
            boolean conflict = conflicting.contains(i);
            reasons.add(conflict ? TRANSACTION_CONFLICT : NONE);
            Map<String, Object> reason = new LinkedHashMap<>();
            reason.put("Code", reasons.get(i));
            if (conflict) {
                reason.put("Message", "Transaction is ongoing for the item");
            }
            cancellationReasons.add(reason);
        }
        return cancellation(reasons, cancellationReasons);
    }

    // ------------------------------------------------------------------------------------------------- engine

    private List<String> keySchema(Exchanger exchanger, String table) throws IOException, EngineAnswer {
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
    private final class Exchanger {
        private final Http.Head clientHead;
        private final String api;

        Exchanger(Http.Head clientHead) {
            this.clientHead = clientHead;
            String target = clientHead.header("X-Amz-Target").orElse("DynamoDB_20120810." + OPERATION);
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

    // ------------------------------------------------------------------------------------------------ answers

    private static Http.Message success(Transaction transaction, Map<String, BigDecimal> capacity) {
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

    private static Http.Message cancelled(List<Action> actions, List<Optional<Map<String, Object>>> snapshots,
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

    private static Http.Message cancellation(List<String> reasons, List<Object> cancellationReasons) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("__type", DYNAMODB_ERROR + "TransactionCanceledException");
        body.put("Message", "Transaction cancelled, please refer cancellation reasons for specific reasons "
                + "[" + String.join(", ", reasons) + "]");
        body.put("CancellationReasons", cancellationReasons);
        return madeUp(400, "Bad Request", body);
    }

    private static Http.Message validationError(String message) {
        return madeUp(400, "Bad Request", error(VALIDATION_ERROR, "message", message));
    }

    private static Map<String, Object> error(String type, String messageMember, String message) {
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

    private static boolean isConditionFailure(Http.Message answer) throws IOException {
        return hasErrorType(answer, "#ConditionalCheckFailedException");
    }

    private static boolean isCancellation(Http.Message answer) throws IOException {
        return hasErrorType(answer, "#TransactionCanceledException");
    }

    private static boolean hasErrorType(Http.Message answer, String suffix) throws IOException {
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

    private static BigDecimal capacityUnits(Map<String, Object> answer) {
        if (answer.get("ConsumedCapacity") instanceof Map<?, ?> consumed
                && consumed.get("CapacityUnits") instanceof BigDecimal units) {
            return units;
        }
        return BigDecimal.ZERO;
    }

    private static Map<String, Object> parse(Http.Message answer) throws IOException {
        try {
            return Json.object(Json.parse(new String(answer.body(), StandardCharsets.UTF_8)), "the engine's answer");
        } catch (Json.ParseException e) {
            throw new IOException("the engine's answer is not JSON: " + answer.head().startLine(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> optionalObject(Object value) {
        return value instanceof Map<?, ?> map && !map.isEmpty() ? Optional.of((Map<String, Object>) map)
                : Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------- requests

    /** A request DynamoDB refuses before doing anything: the message of its ValidationException. */
    private static final class InvalidRequest extends Exception {
        InvalidRequest(String message) {
            super(message);
        }
    }

    /** An answer of the engine that ends the transaction before anything was written (an unknown table, say). */
    private static final class EngineAnswer extends Exception {
        final transient Http.Message answer;

        EngineAnswer(Http.Message answer) {
            super(answer.head().startLine());
            this.answer = answer;
        }
    }

    @FunctionalInterface
    private interface KeySchemas {
        List<String> of(String table) throws IOException, EngineAnswer;
    }

    /** The request as a whole; {@code hash} identifies it without its ClientRequestToken. */
    private record Transaction(List<Map<String, Object>> items, Optional<String> token, boolean returnsCapacity,
                               String hash, List<String> tables) {

        static Transaction of(Map<String, Object> body) throws InvalidRequest {
            if (!(body.get("TransactItems") instanceof List<?> list)) {
                throw new InvalidRequest("1 validation error detected: Value null at 'transactItems' failed to "
                        + "satisfy constraint: Member must not be null");
            }
            if (list.isEmpty() || list.size() > MAX_ACTIONS) {
                throw new InvalidRequest("1 validation error detected: Value '" + list.size() + " items' at "
                        + "'transactItems' failed to satisfy constraint: Member must have length "
                        + (list.isEmpty() ? "greater than or equal to 1" : "less than or equal to " + MAX_ACTIONS));
            }
            List<Map<String, Object>> items = new ArrayList<>();
            List<String> tables = new ArrayList<>();
            for (Object element : list) {
                try {
                    Map<String, Object> item = Json.object(element, "a TransactItems element");
                    items.add(item);
                    Map<String, Object> action = Json.object(item.values().stream().findFirst().orElse(null), "action");
                    tables.add(String.valueOf(action.get("TableName")));
                } catch (Json.ParseException e) {
                    throw new InvalidRequest("TransactItems can only contain one of Check, Put, Update or Delete");
                }
            }
            Optional<String> token = Optional.empty();
            Object tokenValue = body.get("ClientRequestToken");
            if (tokenValue instanceof String text) {
                if (text.isEmpty() || text.length() > MAX_TOKEN_LENGTH) {
                    throw new InvalidRequest("1 validation error detected: Value '" + text + "' at "
                            + "'clientRequestToken' failed to satisfy constraint: Member must have length "
                            + (text.isEmpty() ? "greater than or equal to 1" : "less than or equal to " + MAX_TOKEN_LENGTH));
                }
                token = Optional.of(text);
            }
            Object capacity = body.get("ReturnConsumedCapacity");
            boolean returnsCapacity = "TOTAL".equals(capacity) || "INDEXES".equals(capacity);
            Map<String, Object> withoutToken = Json.copy(body);
            withoutToken.remove("ClientRequestToken");
            return new Transaction(items, token, returnsCapacity, sha256(Json.canonical(withoutToken)), tables);
        }

        private static String sha256(String text) {
            try {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                        .digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }
    }

    enum Kind {
        PUT("Put", "PutItem"), UPDATE("Update", "UpdateItem"), DELETE("Delete", "DeleteItem"),
        CONDITION_CHECK("ConditionCheck", "UpdateItem");

        final String member;
        final String operation;

        Kind(String member, String operation) {
            this.member = member;
            this.operation = operation;
        }
    }

    /** One action of the transaction: the item it targets and the single-item request that applies it. */
    private record Action(Kind kind, String table, Map<String, Object> key, Map<String, Object> fields) {

        static Action of(Map<String, Object> item, KeySchemas schemas) throws InvalidRequest, IOException, EngineAnswer {
            List<Kind> kinds = new ArrayList<>();
            for (Kind kind : Kind.values()) {
                if (item.get(kind.member) != null && item.get(kind.member) != Json.NULL) {
                    kinds.add(kind);
                }
            }
            if (kinds.size() != 1 || item.size() != 1) {
                throw new InvalidRequest("TransactItems can only contain one of Check, Put, Update or Delete");
            }
            Kind kind = kinds.get(0);
            Map<String, Object> fields;
            try {
                fields = Json.object(item.get(kind.member), kind.member);
            } catch (Json.ParseException e) {
                throw new InvalidRequest(e.getMessage());
            }
            if (!(fields.get("TableName") instanceof String table)) {
                throw new InvalidRequest("1 validation error detected: Value null at 'transactItems." + kind.member
                        + ".tableName' failed to satisfy constraint: Member must not be null");
            }
            Map<String, Object> key;
            if (kind == Kind.PUT) {
                if (!(fields.get("Item") instanceof Map<?, ?> stored)) {
                    throw new InvalidRequest("1 validation error detected: Value null at 'transactItems.Put.item' "
                            + "failed to satisfy constraint: Member must not be null");
                }
                key = new LinkedHashMap<>();
                for (String attribute : schemas.of(table)) {
                    Object value = stored.get(attribute);
                    if (value == null) {
                        throw new InvalidRequest("One or more parameter values were invalid: Missing the key "
                                + attribute + " in the item");
                    }
                    key.put(attribute, value);
                }
            } else {
                try {
                    key = Json.object(fields.get("Key"), "Key");
                } catch (Json.ParseException e) {
                    throw new InvalidRequest("1 validation error detected: Value null at 'transactItems."
                            + kind.member + ".key' failed to satisfy constraint: Member must not be null");
                }
            }
            return new Action(kind, table, key, fields);
        }

        String operation() {
            return kind.operation;
        }

        boolean returnsOldItem() {
            return "ALL_OLD".equals(fields.get("ReturnValuesOnConditionCheckFailure"));
        }

        /** The action as its own request; a ConditionCheck becomes an UpdateItem that changes nothing. */
        Map<String, Object> singleItemRequest(boolean returnCapacity) {
            Map<String, Object> request = Json.copy(fields);
            if (kind == Kind.CONDITION_CHECK) {
                @SuppressWarnings("unchecked")
                Map<String, Object> names = request.get("ExpressionAttributeNames") instanceof Map<?, ?> given
                        ? new LinkedHashMap<>((Map<String, Object>) given) : new LinkedHashMap<>();
                names.put(NEVER_PLACEHOLDER, NEVER_ATTRIBUTE);
                request.put("ExpressionAttributeNames", names);
                request.put("UpdateExpression", "REMOVE " + NEVER_PLACEHOLDER);
            }
            if (returnCapacity) {
                request.put("ReturnConsumedCapacity", "TOTAL");
            }
            return request;
        }
    }
}

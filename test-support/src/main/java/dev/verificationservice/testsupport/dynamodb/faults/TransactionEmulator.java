package dev.verificationservice.testsupport.dynamodb.faults;

import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.DYNAMODB_ERROR;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.SERIALIZATION_ERROR;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.conflictCancelled;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.error;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.isCancellation;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.madeUp;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.success;
import static dev.verificationservice.testsupport.dynamodb.faults.TransactionAnswers.validationError;

import dev.verificationservice.testsupport.dynamodb.faults.TransactionApplier.Exchanger;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Action;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.EngineAnswer;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.InvalidRequest;
import dev.verificationservice.testsupport.dynamodb.faults.TransactionRequests.Transaction;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 *
 * <p>Its parts: {@link TransactionRequests} reads and checks the request, {@link EmulatedConflicts} holds the
 * running transactions' items and the test's holds, {@link TransactionApplier} applies and restores the items on
 * the engine, {@link TransactionAnswers} makes up the answers; this class runs them in order and remembers tokens.
 */
final class TransactionEmulator implements AutoCloseable {

    static final String OPERATION = "TransactWriteItems";

    private final Duration tokenMemory;
    private final LongSupplier nanoClock;
    /** ClientRequestToken -> the remembered request, of successful transactions; guarded by this. */
    private final Map<String, RememberedToken> tokens = new HashMap<>();
    private final EmulatedConflicts conflicts = new EmulatedConflicts();
    private final TransactionApplier applier;

    TransactionEmulator(InetSocketAddress engine, Duration tokenMemory, LongSupplier nanoClock) {
        this.applier = new TransactionApplier(engine);
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

        Exchanger exchanger = applier.exchanger(request.head());
        List<Action> actions = new ArrayList<>();
        Set<String> targets = new HashSet<>();
        for (Map<String, Object> item : transaction.items()) {
            Action action;
            try {
                action = Action.of(item, table -> applier.keySchema(exchanger, table));
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

        RunningTransactions.Start start = conflicts.start(
                actions.stream().map(action -> RunningTransactions.Item.of(action.table(), action.key())).toList(),
                transaction.token());
        if (!(start instanceof RunningTransactions.Start.Started)) {
            conflicts.turnedAway();
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
                answer = applier.apply(exchanger, actions, transaction);
            } finally {
                exclusive.unlock();
            }
            conflicts.holdIfMatching(new String(request.body(), StandardCharsets.UTF_8));
            remember(transaction, answer);
            return answer;
        } finally {
            conflicts.finish(owner);
        }
    }

    @Override
    public void close() {
        applier.close();
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

    /** Keeps matching transactions running until the test releases them; see {@link TransactionHold}. */
    TransactionHold hold(String bodyContains) {
        return conflicts.hold(bodyContains);
    }

    /**
     * The answer to a plain write ({@code PutItem}, {@code UpdateItem}, {@code DeleteItem}, {@code BatchWriteItem})
     * when a running transaction holds one of its items: {@code TransactionConflictException}, as DynamoDB's
     * (the SDK does not retry it). Empty when the write may go to the engine.
     */    Optional<Http.Message> conflictOf(String operation, Http.Message request) {
        return conflicts.conflictOf(operation, request);
    }
}

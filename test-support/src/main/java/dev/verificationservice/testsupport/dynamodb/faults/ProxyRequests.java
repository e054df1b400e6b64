package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.zip.CRC32;

/**
 * The fault decisions of a {@link DynamoDbFaultProxy}: for each request, the first fault in force that matches
 * (recorded with the request), and what it does (drop the answer, reset, delay, throttle, fail, leave part of a
 * batch unprocessed, rewrite the answer); without one, the request forwarded to the engine, through the
 * {@link TransactionEmulator} and the {@link IndexLag} where the options ask for them.
 */
final class ProxyRequests {

    private static final String TARGET_HEADER = "X-Amz-Target";

    private final DynamoDbFaultProxy proxy;
    private final URI target;
    private final int port;
    /** Answers TransactWriteItems where the options ask for it; null otherwise. */
    private final TransactionEmulator transactions;
    /** Holds index changes until the test releases them, where the options ask for it; null otherwise. */
    private final IndexLag indexLag;
    /** Charges partition keys and refuses what exceeds their limits, where the options ask for it; null otherwise. */
    private final PartitionCharges partitions;
    /** Exclusive for an emulated transaction, shared for every other forwarded request (only with emulation). */
    private final ReentrantReadWriteLock isolation = new ReentrantReadWriteLock(true);

    ProxyRequests(DynamoDbFaultProxy proxy, URI target, int port, TransactionEmulator transactions, IndexLag indexLag,
                  PartitionThrottling throttling) {
        this.proxy = proxy;
        this.partitions = throttling == null ? null : new PartitionCharges(throttling);
        this.target = target;
        this.port = port;
        this.transactions = transactions;
        this.indexLag = indexLag;
    }

    /** Handles one request; returns whether the connection stays open for the next. */
    boolean handle(ClientConnection connection, Http.Message request, OutputStream out)
            throws IOException, InterruptedException {
        String operation = operationOf(request.head());
        if (proxy.isStoppedOrClosed()) {
            proxy.record(operation, Exchange.Outcome.REFUSED_WHILE_STOPPED, Optional.empty());
            return false;
        }
        Optional<FaultHandle> hit = proxy.claim(operation, new String(request.body(), StandardCharsets.UTF_8));
        Fault.Action action = hit.map(handle -> handle.fault().action()).orElse(null);
        if (action == null && partitions != null) {
            return forwardWithinPartitionLimits(connection, operation, request, out);
        }
        proxy.record(operation, outcomeOf(action), hit);
        hit.ifPresent(FaultHandle::markApplied);

        if (action == null) {
            return forward(connection, request, out);
        } else if (action instanceof Fault.Action.DropAnswer) {
            forwardedAnswer(connection, request); // applied; the answer is read and thrown away
            return false;
        } else if (action instanceof Fault.Action.Reset) {
            connection.reset();
            return false;
        } else if (action instanceof Fault.Action.Delay delay) {
            TimeUnit.NANOSECONDS.sleep(delay.duration().toNanos());
            return forward(connection, request, out);
        } else if (action instanceof Fault.Action.Throttle throttle) {
            answerError(out, 400, "Bad Request", "com.amazonaws.dynamodb.v20120810#" + throttle.error().code(),
                    throttle.error().message());
            return !request.head().closes();
        } else if (action instanceof Fault.Action.ServerError error) {
            answerError(out, 500, "Internal Server Error", "com.amazon.coral.service#InternalFailure", error.message());
            return !request.head().closes();
        } else if (action instanceof Fault.Action.UnexpectedError error) {
            answerError(out, 400, "Bad Request", "com.amazonaws.dynamodb.v20120810#" + error.type(), error.message());
            return !request.head().closes();
        } else if (action instanceof Fault.Action.LeaveUnprocessed partly) {
            return processPartly(connection, request, partly.processed(), out);
        } else if (action instanceof Fault.Action.RewriteAnswer rewrite) {
            return answerRewritten(connection, request, rewrite, out);
        }
        throw new IllegalStateException("unknown fault action " + action);
    }

    /**
     * Forwards the request if every partition key it charges has the capacity left, and corrects the charges once
     * the engine has answered; otherwise answers as DynamoDB does when a table's or an index's key is throttled.
     */
    private boolean forwardWithinPartitionLimits(ClientConnection connection, String operation, Http.Message request,
                                                 OutputStream out) throws IOException, InterruptedException {
        PartitionCharges.Decision decision = partitions.admit(connection.upstream, operation, request.body());
        if (decision instanceof PartitionCharges.Decision.Refused refused) {
            proxy.record(operation, Exchange.Outcome.PARTITION_THROTTLED, Optional.empty());
            Http.Message answer = throttledAnswer(refused, regionOf(request.head()));
            Http.write(out, answer.head(), answer.body());
            return !request.head().closes();
        }
        proxy.record(operation, Exchange.Outcome.FORWARDED, Optional.empty());
        Http.Message response = forwardedAnswer(connection, request);
        if (decision instanceof PartitionCharges.Decision.Admitted admitted) {
            partitions.settle(connection.upstream, admitted, response);
        }
        Http.write(out, response.head(), response.body());
        return !(request.head().closes() || response.head().closes());
    }

    /** Forwards the request and answers with the engine's successful answer rewritten; an error goes through as it is. */
    private boolean answerRewritten(ClientConnection connection, Http.Message request,
                                    Fault.Action.RewriteAnswer rewrite, OutputStream out) throws IOException, InterruptedException {
        Http.Message answer = forwardedAnswer(connection, request);
        if (answer.head().status() != 200) {
            Http.write(out, answer.head(), answer.body());
            return !(request.head().closes() || answer.head().closes());
        }
        Map<String, Object> body;
        try {
            body = Json.object(Json.parse(new String(answer.body(), StandardCharsets.UTF_8)), "the engine's answer");
        } catch (Json.ParseException e) {
            throw new IllegalStateException("a REWRITE_ANSWER fault met an answer that is not a JSON object", e);
        }
        byte[] rewritten = Json.write(rewrite.rewrite().apply(body)).getBytes(StandardCharsets.UTF_8);
        // DynamoDB signs its answer's body with a CRC32 the SDK checks: the rewritten body gets its own.
        CRC32 crc = new CRC32();
        crc.update(rewritten);
        Http.write(out, answer.head().without("Content-Length").with("Content-Length", Integer.toString(rewritten.length))
                .without("x-amz-crc32").with("x-amz-crc32", Long.toString(crc.getValue())), rewritten);
        return !(request.head().closes() || answer.head().closes());
    }

    /**
     * Forwards the first {@code processed} write requests of a {@code BatchWriteItem} (a request of the same shape
     * holding only those) and answers the rest as {@code UnprocessedItems}; the engine's answer to the forwarded
     * part must itself have left nothing unprocessed.
     */
    @SuppressWarnings("unchecked")
    private boolean processPartly(ClientConnection connection, Http.Message request, int processed, OutputStream out)
            throws IOException, InterruptedException {
        Map<String, Object> body;
        try {
            body = Json.object(Json.parse(new String(request.body(), StandardCharsets.UTF_8)), "BatchWriteItem request");
        } catch (Json.ParseException e) {
            throw new IllegalStateException("a LEAVE_UNPROCESSED fault hit a request that is not BatchWriteItem JSON", e);
        }
        Map<String, Object> forwarded = new LinkedHashMap<>();
        Map<String, Object> unprocessed = new LinkedHashMap<>();
        int left = processed;
        for (Map.Entry<String, Object> table : ((Map<String, Object>) body.get("RequestItems")).entrySet()) {
            List<Object> writes = (List<Object>) table.getValue();
            int take = Math.min(left, writes.size());
            left -= take;
            if (take > 0) {
                forwarded.put(table.getKey(), new ArrayList<>(writes.subList(0, take)));
            }
            if (take < writes.size()) {
                unprocessed.put(table.getKey(), new ArrayList<>(writes.subList(take, writes.size())));
            }
        }
        if (!forwarded.isEmpty()) {
            Map<String, Object> part = Json.copy(body);
            part.put("RequestItems", forwarded);
            byte[] partBody = Json.write(part).getBytes(StandardCharsets.UTF_8);
            Http.Message answer = forwardedAnswer(connection, new Http.Message(request.head().without("Content-Length")
                    .with("Content-Length", Integer.toString(partBody.length)), partBody));
            if (answer.head().status() != 200) {
                Http.write(out, answer.head(), answer.body());
                return false;
            }
        }
        byte[] answerBody = Json.write(Map.of("UnprocessedItems", unprocessed)).getBytes(StandardCharsets.UTF_8);
        Http.Head head = new Http.Head("HTTP/1.1 200 OK", List.of(
                new Http.Header("x-amzn-RequestId", DynamoDbFaultProxy.requestId()),
                new Http.Header("Content-Type", "application/x-amz-json-1.0"),
                new Http.Header("Content-Length", Integer.toString(answerBody.length))));
        Http.write(out, head, answerBody);
        return !request.head().closes();
    }

    private boolean forward(ClientConnection connection, Http.Message request, OutputStream out)
            throws IOException, InterruptedException {
        Http.Message response = forwardedAnswer(connection, request);
        Http.write(out, response.head(), response.body());
        return !(request.head().closes() || response.head().closes());
    }

    /**
     * The engine's answer, or with transaction emulation the emulated transaction's answer (under the exclusive
     * lock) and every other answer under the shared lock.
     */
    private Http.Message forwardedAnswer(ClientConnection connection, Http.Message request)
            throws IOException, InterruptedException {
        if (transactions == null) {
            return lagged(connection, request);
        }
        String operation = operationOf(request.head());
        if (TransactionEmulator.OPERATION.equals(operation)) {
            try {
                Http.Message answer = transactions.execute(request, isolation.writeLock());
                if (indexLag != null) {
                    indexLag.afterForward(TransactionEmulator.OPERATION, request, answer);
                }
                return answer;
            } catch (IOException e) {
                System.err.println("DynamoDbFaultProxy on port " + port + ": the emulated " + TransactionEmulator.OPERATION
                        + " failed (" + e + "); closing the client connection");
                throw e;
            }
        }
        Lock lock = isolation.readLock();
        lock.lockInterruptibly();
        try {
            Optional<Http.Message> conflict = transactions.conflictOf(operation, request);
            return conflict.isPresent() ? conflict.get() : lagged(connection, request);
        } finally {
            lock.unlock();
        }
    }

    /** The engine's answer, with index queries answered from the lagging view where the options ask for one. */
    private Http.Message lagged(ClientConnection connection, Http.Message request) throws IOException {
        if (indexLag == null) {
            return exchange(connection, request);
        }
        String operation = operationOf(request.head());
        Http.Message sent = indexLag.rewriteRequest(operation, request);
        Http.Message answer = exchange(connection, sent);
        if (sent != request) {
            return indexLag.rewriteAnswer(sent, answer);
        }
        indexLag.afterForward(operation, request, answer);
        return answer;
    }

    private Http.Message exchange(ClientConnection connection, Http.Message request) throws IOException {
        try {
            return connection.upstream.exchange(request);
        } catch (IOException e) {
            if (!proxy.isStoppedOrClosed()) {
                System.err.println("DynamoDbFaultProxy on port " + port + ": no answer from the engine at " + target
                        + " to " + operationOf(request.head()) + " (" + e + "); closing the client connection");
            }
            throw e;
        }
    }

    /**
     * DynamoDB's answer to a request a partition key refused: a transaction is cancelled whole, with ThrottlingError
     * on the actions that key refused (the SDK does not retry a cancellation); any other request is a
     * ProvisionedThroughputExceededException naming the throttled table or index and why, which the SDK retries.
     */
    private static Http.Message throttledAnswer(PartitionCharges.Decision.Refused refused, String region) {
        if (refused.operation().equals(TransactionEmulator.OPERATION)) {
            return TransactionAnswers.throttleCancelled(refused.transactionActions(), refused.actions());
        }
        List<Object> reasons = new ArrayList<>();
        for (PartitionThrottling.Charge lacking : refused.refused()) {
            PartitionThrottling.PartitionKey key = lacking.key();
            Map<String, Object> reason = new LinkedHashMap<>();
            reason.put("reason", (key.ofIndex() ? "Index" : "Table")
                    + (lacking.kind() == PartitionThrottling.Kind.WRITE ? "Write" : "Read") + "KeyRangeThroughputExceeded");
            reason.put("resource", "arn:aws:dynamodb:" + region + ":000000000000:table/" + key.table()
                    + (key.ofIndex() ? "/index/" + key.index() : ""));
            if (!reasons.contains(reason)) {
                reasons.add(reason);
            }
        }
        Map<String, Object> body = TransactionAnswers.error(TransactionAnswers.DYNAMODB_ERROR
                + "ProvisionedThroughputExceededException", "message", refused.byIndex()
                ? "Throughput exceeds the current capacity for one or more global secondary indexes. "
                        + "DynamoDB is automatically scaling your index so please try again shortly."
                : TransactionAnswers.THROUGHPUT_EXCEEDED);
        body.put("ThrottlingReasons", reasons);
        return TransactionAnswers.madeUp(400, "Bad Request", body);
    }

    /** The Region the request was signed for, as an ARN names it; us-east-1 if it names none. */
    private static String regionOf(Http.Head head) {
        String authorization = head.header("Authorization").orElse("");
        int credential = authorization.indexOf("Credential=");
        String[] scope = credential < 0 ? new String[0]
                : authorization.substring(credential + "Credential=".length()).split("[/,]");
        return scope.length > 2 ? scope[2] : "us-east-1";
    }

    private static void answerError(OutputStream out, int status, String reason, String type, String message)
            throws IOException {
        byte[] body = ("{\"__type\":\"" + json(type) + "\",\"message\":\"" + json(message) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        Http.Head head = new Http.Head("HTTP/1.1 " + status + " " + reason, List.of(
                new Http.Header("x-amzn-RequestId", DynamoDbFaultProxy.requestId()),
                new Http.Header("Content-Type", "application/x-amz-json-1.0"),
                new Http.Header("Content-Length", Integer.toString(body.length))));
        Http.write(out, head, body);
    }

    private static Exchange.Outcome outcomeOf(Fault.Action action) {
        if (action == null) {
            return Exchange.Outcome.FORWARDED;
        } else if (action instanceof Fault.Action.DropAnswer) {
            return Exchange.Outcome.ANSWER_DROPPED;
        } else if (action instanceof Fault.Action.Reset) {
            return Exchange.Outcome.RESET;
        } else if (action instanceof Fault.Action.Delay) {
            return Exchange.Outcome.DELAYED;
        } else if (action instanceof Fault.Action.Throttle) {
            return Exchange.Outcome.THROTTLED;
        } else if (action instanceof Fault.Action.ServerError) {
            return Exchange.Outcome.SERVER_ERROR;
        } else if (action instanceof Fault.Action.UnexpectedError) {
            return Exchange.Outcome.UNEXPECTED_ERROR;
        } else if (action instanceof Fault.Action.LeaveUnprocessed) {
            return Exchange.Outcome.PARTLY_PROCESSED;
        } else if (action instanceof Fault.Action.RewriteAnswer) {
            return Exchange.Outcome.ANSWER_REWRITTEN;
        }
        throw new IllegalStateException("unknown fault action " + action);
    }

    /** {@code DynamoDB_20120810.UpdateItem} -> {@code UpdateItem}; empty without the header. */
    private static String operationOf(Http.Head head) {
        String target = head.header(TARGET_HEADER).orElse("");
        return target.substring(target.lastIndexOf('.') + 1);
    }

    private static String json(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                escaped.append('\\').append(c);
            } else if (c < 0x20) {
                escaped.append(String.format("\\u%04x", (int) c));
            } else {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }
}

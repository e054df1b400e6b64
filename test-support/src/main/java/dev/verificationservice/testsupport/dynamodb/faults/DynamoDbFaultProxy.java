package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;


/**
 * A fault-injecting HTTP proxy between a DynamoDB client (the AWS SDK) and a DynamoDB-compatible engine
 * (dynalite in the tests), for the failures a real network and a real DynamoDB produce and a local engine
 * never does.
 *
 * <p>Why: the store must stay exactly-once when a write is applied but its answer is lost and the SDK sends
 * it again, and the server must answer 503 quickly when DynamoDB throttles or is down. Neither can be shown
 * against a healthy engine. Point the client's {@code endpointOverride} at {@link #endpoint()} and
 * {@linkplain #inject inject} {@link Fault faults}; every request the proxy sees is also
 * {@linkplain #exchanges() recorded}, so that a test can count the store's round trips.
 *
 * <pre>{@code
 * try (DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(dynalite.endpoint())) {
 *     DynamoDbClient client = DynamoDbClient.builder().endpointOverride(proxy.endpoint())...build();
 *     proxy.inject(Fault.dropAnswer("UpdateItem").whenBodyContains("ADD #count"));
 *     client.updateItem(...);                      // applied twice: once per attempt
 *     assertThat(proxy.count("UpdateItem")).isEqualTo(2);
 * }
 * }</pre>
 *
 * <p>How: HTTP/1.1 with keep-alive on 127.0.0.1 and a free port, one platform thread per client connection,
 * each with its own connection to the engine. Request and answer heads pass unchanged (the SDK checks the
 * engine's {@code x-amz-crc32}); only chunked or close-delimited bodies are re-framed with a
 * {@code Content-Length}, and {@code Expect: 100-continue} is answered by the proxy. Answers the proxy makes
 * up carry no {@code x-amz-crc32}; an answer it rewrites ({@link Fault#rewriteAnswer}) carries its own. The
 * operation is the part of {@code X-Amz-Target} after the dot. The connections are served by
 * {@code ProxyListener}, each request's fate (a fault or forwarding) is decided by {@code ProxyRequests}.
 *
 * <p>Thread-safe: tests inject, stop and read the recording from their own thread while connection threads
 * serve requests. Faults are tried in the order they were injected; the first that matches hits the request.
 *
 * <p><b>TransactWriteItems emulation (opt-in, {@link Options#emulatingTransactions()}).</b> dynalite has no
 * {@code TransactWriteItems}; with this option the proxy answers it itself, built only from the engine's own
 * single-item operations, so that the engine still evaluates every condition and update expression:
 * <ul>
 *   <li>each item is read first with a consistent GetItem (its snapshot); then each action is sent in order as
 *   PutItem, UpdateItem or DeleteItem with its own ConditionExpression, names, values and
 *   ReturnValuesOnConditionCheckFailure (a ConditionCheck as an UpdateItem with its condition and {@code REMOVE}
 *   of an attribute that never exists, its item put back to the snapshot at once);</li>
 *   <li>if a condition fails, every item sent is put back to its snapshot (PutItem of the old item, DeleteItem
 *   where there was none) and the answer is DynamoDB's {@code TransactionCanceledException}, HTTP 400, with one
 *   cancellation reason per action ({@code None} or {@code ConditionalCheckFailed}, with the old item where the
 *   action asked for {@code ALL_OLD}); any other error of an action (a bad expression) is the engine's own
 *   answer, after the same restoring;</li>
 *   <li>success answers {@code {}}, or with {@code ConsumedCapacity} per table when asked: twice the engine's
 *   units for each action, as DynamoDB bills transactional writes twice;</li>
 *   <li>a completed transaction's ClientRequestToken is remembered with a hash of the request for
 *   {@link Options#clientRequestTokenMemory() 10 minutes}, as DynamoDB does: the same token with the same
 *   request answers success without applying anything, with another request
 *   {@code IdempotentParameterMismatchException}. A cancelled transaction's token is remembered too (DynamoDB's
 *   window starts when the first request "is completed", whatever its outcome): the same request gets the same
 *   cancellation again without running, another request {@code IdempotentParameterMismatchException}; the
 *   unkindest reading, so a product must send a different request, or a retry after a cancellation, under a
 *   fresh token. {@link Options#withoutClientRequestTokenMemory()} turns this
 *   off, so that the engine runs a retried transaction again (for tests of the product's own retry
 *   recognition, as after DynamoDB's 10 minutes);</li>
 *   <li>isolation: a transaction is applied under the proxy's exclusive lock while every other forwarded request
 *   holds the shared lock, so nothing that goes through this proxy sees it half done;</li>
 *   <li>conflicts, as DynamoDB's (never kinder): from its start until it answers a transaction holds its items and
 *   its ClientRequestToken. A PutItem, UpdateItem, DeleteItem or BatchWriteItem that writes a held item answers
 *   {@code TransactionConflictException}; a second transaction on a held item is cancelled with reason
 *   {@code TransactionConflict}; a transaction whose token is running answers
 *   {@code TransactionInProgressException}. {@link #holdTransactions(String)} keeps transactions running until
 *   the test releases them, so these are shown without sleeping;</li>
 *   <li>a transaction is recorded as operation {@code TransactWriteItems} like any other request and faults hit
 *   it as usual: {@link Fault#dropAnswer DROP_ANSWER} runs it, then drops the answer; THROTTLE, RESET and
 *   SERVER_ERROR answer without running it. The single-item requests it makes go to the engine on a connection
 *   of their own and are neither recorded nor hit by faults.</li>
 * </ul>
 * <b>This is a test emulation, not DynamoDB's transactions.</b> It is atomic and isolated only with respect to
 * traffic through this one proxy: a client talking to the engine directly sees the items one by one, and a
 * crash of the JVM mid-transaction leaves it half applied. Tests on it show that the product sends the right
 * transactions and reads their answers right; DynamoDB's own atomicity is not what they prove.
 *
 * <p><b>Lagging indexes (opt-in, {@link Options#withIndexLag()}).</b> A Query on a global secondary index answers
 * from the table as it was at the test's last {@link IndexLag#release()}, never later, as DynamoDB's eventually
 * consistent indexes may; see {@link IndexLag}.
 *
 * <p><b>Partition limits (opt-in, {@link Options#withPartitionLimits}).</b> Every partition key of a table and of
 * its indexes gets DynamoDB's limit a second (or a test's scaled-down one), on the options' clock; a request
 * beyond it is answered as DynamoDB does ({@code ProvisionedThroughputExceededException}, or a transaction's
 * {@code ThrottlingError} cancellation); see {@link PartitionThrottling}. Faults
 * come first: a request a fault hits is not charged.
 */
public final class DynamoDbFaultProxy implements AutoCloseable {

    private final URI target;
    private final int port;
    private final URI endpoint;
    private final List<FaultHandle> faults = new ArrayList<>(); // guarded by itself
    private final List<Exchange> exchanges = new ArrayList<>(); // guarded by itself
    private final AtomicLong sequence = new AtomicLong();
    private final Options options;
    /** Answers TransactWriteItems where the options ask for it; null otherwise. */
    private final TransactionEmulator transactions;
    /** Holds index changes until the test releases them, where the options ask for it; null otherwise. */
    private final IndexLag indexLag;
    /** Holds every partition key to its limits, where the options ask for it; null otherwise. */
    private final PartitionThrottling partitions;
    /** Connection handling: listening, accepting, serving, stopping. */
    private final ProxyListener listener;

    private DynamoDbFaultProxy(URI target, InetSocketAddress engine, ServerSocket server, Options options) {
        this.target = target;
        this.options = options;
        this.transactions = options.emulateTransactions()
                ? new TransactionEmulator(engine, options.clientRequestTokenMemory(), options.nanoClock())
                : null;
        this.indexLag = options.lagIndexes() ? new IndexLag(engine) : null;
        this.partitions = options.partitionLimits() == null ? null
                : new PartitionThrottling(options.partitionLimits(), options.nanoClock());
        this.port = server.getLocalPort();
        this.endpoint = URI.create("http://" + ProxyListener.LOOPBACK + ":" + port);
        this.listener = new ProxyListener(engine, server, new ProxyRequests(this, target, port, transactions, indexLag,
                partitions));
    }

    /**
     * Starts a proxy to the engine at {@code target} (an {@code http} URI such as dynalite's endpoint), listening
     * on 127.0.0.1 and a free port, with the {@linkplain Options#defaults() default options}: no transaction
     * emulation.
     */
    public static DynamoDbFaultProxy start(URI target) {
        return start(target, Options.defaults());
    }

    /**
     * Starts a proxy to the engine at {@code target} with the options, e.g.
     * {@code start(dynalite.endpoint(), Options.defaults().emulatingTransactions())}.
     */
    public static DynamoDbFaultProxy start(URI target, Options options) {
        return start(target, options, 0);
    }

    /**
     * As {@link #start(URI, Options)}, listening on {@code port} (0: a free one). Tests always take a free port;
     * a fixed one is for the development launcher ({@code LocalDynamoDb}), whose users configure an endpoint.
     */
    public static DynamoDbFaultProxy start(URI target, Options options, int port) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(options, "options");
        if (!"http".equalsIgnoreCase(target.getScheme()) || target.getHost() == null) {
            throw new IllegalArgumentException("the proxy forwards plain HTTP; the target must look like "
                    + "http://127.0.0.1:8000, not " + target);
        }
        InetSocketAddress engine = new InetSocketAddress(target.getHost(), target.getPort() < 0 ? 80 : target.getPort());
        if (engine.isUnresolved()) {
            throw new IllegalArgumentException("cannot resolve the target host of " + target);
        }
        ServerSocket server;
        try {
            server = ProxyListener.listen(port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + ProxyListener.LOOPBACK + ":" + port
                    + " for the fault proxy", e);
        }
        DynamoDbFaultProxy proxy = new DynamoDbFaultProxy(target, engine, server, options);
        proxy.listener.start();
        return proxy;
    }

    /** Where clients connect: {@code http://127.0.0.1:<port>}. It stays the same across {@link #stop()} and {@link #resume()}. */
    public URI endpoint() {
        return endpoint;
    }

    /** The engine requests are forwarded to. */
    public URI target() {
        return target;
    }

    /** The options the proxy was started with. */
    public Options options() {
        return options;
    }

    /**
     * The lag of the indexes ({@link Options#lagIndexes()}): index queries answer from the table as it was at
     * the last {@link IndexLag#release()}.
     */
    public IndexLag indexLag() {
        if (indexLag == null) {
            throw new IllegalStateException("this proxy was started without Options.withIndexLag()");
        }
        return indexLag;
    }

    /**
     * What each partition key used and how often it was throttled ({@link Options#withPartitionLimits}); see
     * {@link PartitionThrottling}.
     */
    public PartitionThrottling partitions() {
        if (partitions == null) {
            throw new IllegalStateException("this proxy was started without Options.withPartitionLimits(...)");
        }
        return partitions;
    }

    // ---------------------------------------------------------------------------------------------- faults

    /** Puts a fault in force, after those already injected; the handle tells how often it hit and removes it. */
    public FaultHandle inject(Fault fault) {
        FaultHandle handle = new FaultHandle(fault, this);
        synchronized (faults) {
            faults.add(handle);
        }
        return handle;
    }

    /** The faults still in force, in the order they are tried. */
    public List<FaultHandle> faults() {
        synchronized (faults) {
            faults.removeIf(handle -> !handle.isActive());
            return List.copyOf(faults);
        }
    }

    /** Removes every fault; the proxy forwards everything again (unless {@linkplain #stop() stopped}). */
    public void clear() {
        List<FaultHandle> removed;
        synchronized (faults) {
            removed = new ArrayList<>(faults);
            faults.clear();
        }
        removed.forEach(FaultHandle::remove);
    }

    void forget(FaultHandle handle) {
        synchronized (faults) {
            faults.remove(handle);
        }
    }

    /** The first fault in force that matches, counted as hit; lock order: faults, then the handle. */
    Optional<FaultHandle> claim(String operation, String body) {
        synchronized (faults) {
            Iterator<FaultHandle> candidates = faults.iterator();
            while (candidates.hasNext()) {
                FaultHandle handle = candidates.next();
                boolean hit = handle.claim(operation, body);
                if (!handle.isActive()) {
                    candidates.remove();
                }
                if (hit) {
                    return Optional.of(handle);
                }
            }
            return Optional.empty();
        }
    }

    // ------------------------------------------------------------------------------------ engine up / down

    /**
     * "The engine is down": closes the listening socket, so that new connections are refused, and closes every
     * open connection, so that requests in flight lose their answers and pooled connections are dead. A request
     * already forwarded may still be applied by the engine. Stopping twice is harmless.
     *
     * <p>It returns only once the accepting thread and every connection's thread have ended. Closing a socket
     * that another thread is blocked on only marks it closed: the kernel keeps the listening socket (and so
     * completes new handshakes into its backlog) or the connection (and so takes a pooled request) until that
     * thread wakes up, which on a busy machine can take a while. A caller that connects right after this returns
     * is therefore refused, never accepted and left without an answer.
     */
    public void stop() {
        listener.stop();
    }

    /**
     * Listens again on the same port after {@link #stop()}. The port is free in between; if another socket takes
     * it meanwhile (unlikely on loopback), this keeps trying for a few seconds and then throws.
     */
    public void resume() {
        listener.resume();
    }

    /** Whether the proxy is {@linkplain #stop() stopped}. */
    public boolean isStopped() {
        return listener.isStopped();
    }

    /** Stops listening, closes every connection (delayed requests are not forwarded) and ends its threads. */
    @Override
    public void close() {
        listener.close(() -> {
            if (transactions != null) {
                transactions.close();
            }
            if (indexLag != null) {
                indexLag.close();
            }
        });
    }

    boolean isStoppedOrClosed() {
        return listener.isStoppedOrClosed();
    }

    // --------------------------------------------------------------------------------------------- recording

    /** Every request received since the start or the last {@link #clearRecording()}, in order of arrival. */
    public List<Exchange> exchanges() {
        synchronized (exchanges) {
            return List.copyOf(exchanges);
        }
    }

    /** The operations of {@link #exchanges()}, in order of arrival: one entry per attempt the client made. */
    public List<String> operations() {
        return exchanges().stream().map(Exchange::operation).toList();
    }

    /** How many requests of the operation arrived (every attempt, whatever its fate). */
    public int count(String operation) {
        return (int) exchanges().stream().filter(exchange -> exchange.operation().equals(operation)).count();
    }

    /** How many requests of the operation went (or, delayed, were to go) to the engine. */
    public int forwardedCount(String operation) {
        return (int) exchanges().stream()
                .filter(exchange -> exchange.operation().equals(operation) && exchange.forwarded()).count();
    }

    /** Forgets the recorded requests, e.g. after a test's setup; the sequence numbers keep growing. */
    public void clearRecording() {
        synchronized (exchanges) {
            exchanges.clear();
        }
    }

    /** How many client connections the proxy accepted, e.g. to see that a client reconnected. */
    public int acceptedConnections() {
        return listener.acceptedConnections();
    }

    void record(String operation, Exchange.Outcome outcome, Optional<FaultHandle> fault) {
        synchronized (exchanges) {
            exchanges.add(new Exchange(sequence.incrementAndGet(), Instant.now(), operation, outcome,
                    fault.map(FaultHandle::fault)));
        }
    }

    /**
     * Keeps every emulated transaction whose request body contains {@code bodyContains} running, holding its items
     * and ClientRequestToken, from the moment its outcome is decided until the test calls
     * {@link TransactionHold#release()}; see {@link TransactionHold}. Needs {@link Options#emulatingTransactions()}.
     */
    public TransactionHold holdTransactions(String bodyContains) {
        if (transactions == null) {
            throw new IllegalStateException("only emulated transactions can be held: start the proxy with "
                    + "Options.defaults().emulatingTransactions()");
        }
        return transactions.hold(bodyContains);
    }

    /** A request id as DynamoDB's {@code x-amzn-RequestId}: 52 upper-case letters and digits. */
    static String requestId() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        StringBuilder id = new StringBuilder(52);
        for (int i = 0; i < 52; i++) {
            id.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        }
        return id.toString();
    }

    @Override
    public String toString() {
        return "DynamoDbFaultProxy[" + endpoint + " -> " + target + (isStopped() ? ", stopped" : "") + "]";
    }

    /**
     * How a proxy behaves beyond forwarding and faults; a value, built from {@link #defaults()}.
     *
     * @param emulateTransactions       answer {@code TransactWriteItems} with the emulation described on
     *                                  {@link DynamoDbFaultProxy} instead of forwarding it
     * @param clientRequestTokenMemory  how long the emulation remembers a completed transaction's
     *                                  ClientRequestToken (DynamoDB: 10 minutes); zero: not at all
     * @param nanoClock                 what that memory and the partition limits are measured on (nanoseconds); a test moves its own
     * @param lagIndexes                index queries answer from a view the test brings up to date
     *                                  ({@link IndexLag}) instead of the engine's own indexes
     * @param partitionLimits           each partition key's limits ({@link PartitionThrottling}), measured on
     *                                  {@code nanoClock}; null: no limits
     */
    public record Options(boolean emulateTransactions, Duration clientRequestTokenMemory, LongSupplier nanoClock,
                          boolean lagIndexes, Function<PartitionThrottling.PartitionKey, PartitionLimits> partitionLimits) {

        /** DynamoDB's idempotency window for a ClientRequestToken. */
        public static final Duration DYNAMODB_TOKEN_MEMORY = Duration.ofMinutes(10);

        public Options {
            Objects.requireNonNull(clientRequestTokenMemory, "clientRequestTokenMemory");
            Objects.requireNonNull(nanoClock, "nanoClock");
            if (clientRequestTokenMemory.isNegative()) {
                throw new IllegalArgumentException("clientRequestTokenMemory is negative: " + clientRequestTokenMemory);
            }
        }

        /** Forward everything, TransactWriteItems included; tokens would be remembered for DynamoDB's 10 minutes. */
        public static Options defaults() {
            return new Options(false, DYNAMODB_TOKEN_MEMORY, System::nanoTime, false, null);
        }

        /** Answer TransactWriteItems with the emulation. */
        public Options emulatingTransactions() {
            return new Options(true, clientRequestTokenMemory, nanoClock, lagIndexes, partitionLimits);
        }

        /** Remember a completed transaction's ClientRequestToken for this long instead of 10 minutes. */
        public Options withClientRequestTokenMemory(Duration memory) {
            return new Options(emulateTransactions, memory, nanoClock, lagIndexes, partitionLimits);
        }

        /**
         * Hold every partition key of the tables and their indexes to {@code limits} a second, e.g.
         * {@code PartitionLimits.DYNAMODB.dividedBy(100)}, refilled on {@link #nanoClock()}.
         */
        public Options withPartitionLimits(PartitionLimits limits) {
            Objects.requireNonNull(limits, "limits");
            return withPartitionLimits(key -> limits);
        }

        /** Hold each partition key to the limits {@code limitsOf} gives it, e.g. lower ones for a shared key. */
        public Options withPartitionLimits(Function<PartitionThrottling.PartitionKey, PartitionLimits> limitsOf) {
            return new Options(emulateTransactions, clientRequestTokenMemory, nanoClock, lagIndexes,
                    Objects.requireNonNull(limitsOf, "limitsOf"));
        }

        /** Measure the token memory and the partition limits on this clock (nanoseconds), which a test moves. */
        public Options measuredBy(LongSupplier clock) {
            return new Options(emulateTransactions, clientRequestTokenMemory, clock, lagIndexes, partitionLimits);
        }

        /**
         * Let the global secondary indexes lag ({@link IndexLag}): a Query on an index sees no change made since
         * the last {@link IndexLag#release()}, as on DynamoDB, where an index is eventually consistent.
         */
        public Options withIndexLag() {
            return new Options(emulateTransactions, clientRequestTokenMemory, nanoClock, true, partitionLimits);
        }

        /** Remember no ClientRequestToken: a retried transaction runs again, as after DynamoDB's 10 minutes. */
        public Options withoutClientRequestTokenMemory() {
            return withClientRequestTokenMemory(Duration.ZERO);
        }
    }

}

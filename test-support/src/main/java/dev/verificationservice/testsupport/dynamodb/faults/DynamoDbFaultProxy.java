package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;

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
 * operation is the part of {@code X-Amz-Target} after the dot.
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
 */
public final class DynamoDbFaultProxy implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";
    private static final String TARGET_HEADER = "X-Amz-Target";
    /** How long {@link #resume()} keeps trying to listen on the port again before it gives up. */
    private static final Duration REBIND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final URI target;
    private final InetSocketAddress engine;
    private final int port;
    private final URI endpoint;
    private final ExecutorService workers;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final List<FaultHandle> faults = new ArrayList<>(); // guarded by itself
    private final List<Exchange> exchanges = new ArrayList<>(); // guarded by itself
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicInteger acceptedConnections = new AtomicInteger();
    private final Options options;
    /** Answers TransactWriteItems where the options ask for it; null otherwise. */
    private final TransactionEmulator transactions;
    /** Holds index changes until the test releases them, where the options ask for it; null otherwise. */
    private final IndexLag indexLag;
    /** Exclusive for an emulated transaction, shared for every other forwarded request (only with emulation). */
    private final ReentrantReadWriteLock isolation = new ReentrantReadWriteLock(true);

    private final Object lifecycle = new Object();
    private ServerSocket server; // guarded by lifecycle; null while stopped or closed
    private Thread acceptor; // guarded by lifecycle; the thread accepting on server, null while stopped or closed
    private boolean stopped; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle

    private DynamoDbFaultProxy(URI target, InetSocketAddress engine, ServerSocket server, Options options) {
        this.target = target;
        this.engine = engine;
        this.options = options;
        this.transactions = options.emulateTransactions()
                ? new TransactionEmulator(engine, options.clientRequestTokenMemory(), options.nanoClock())
                : null;
        this.indexLag = options.lagIndexes() ? new IndexLag(engine) : null;
        this.server = server;
        this.port = server.getLocalPort();
        this.endpoint = URI.create("http://" + LOOPBACK + ":" + port);
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "dynamodb-fault-proxy-" + port + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
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
            server = listen(port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + LOOPBACK + ":" + port + " for the fault proxy", e);
        }
        DynamoDbFaultProxy proxy = new DynamoDbFaultProxy(target, engine, server, options);
        synchronized (proxy.lifecycle) {
            proxy.startAccepting(server);
        }
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
    private Optional<FaultHandle> claim(String operation, String body) {
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
        Thread accepting;
        synchronized (lifecycle) {
            requireOpen();
            if (stopped) {
                return;
            }
            stopped = true;
            closeQuietly(server);
            server = null;
            accepting = acceptor;
            acceptor = null;
        }
        List<Connection> open = List.copyOf(connections);
        open.forEach(Connection::abort);
        awaitEnd(accepting, open);
    }

    /** Waits until the thread that accepted on a closed listening socket and the aborted connections' threads end. */
    private void awaitEnd(Thread accepting, List<Connection> aborted) {
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        try {
            if (accepting != null && accepting != Thread.currentThread()) {
                accepting.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (accepting.isAlive()) {
                    throw new IllegalStateException("the fault proxy on port " + port
                            + " still accepts connections " + CLOSE_TIMEOUT + " after closing its socket");
                }
            }
            for (Connection connection : aborted) {
                if (!connection.awaitEnd(deadline - System.nanoTime())) {
                    throw new IllegalStateException("a connection of the fault proxy on port " + port
                            + " is still served " + CLOSE_TIMEOUT + " after it was closed");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the fault proxy on port " + port, e);
        }
    }

    /**
     * Listens again on the same port after {@link #stop()}. The port is free in between; if another socket takes
     * it meanwhile (unlikely on loopback), this keeps trying for a few seconds and then throws.
     */
    public void resume() {
        synchronized (lifecycle) {
            requireOpen();
            if (!stopped) {
                return;
            }
            ServerSocket reopened = listenAgain();
            server = reopened;
            stopped = false;
            startAccepting(reopened);
        }
    }

    /** Whether the proxy is {@linkplain #stop() stopped}. */
    public boolean isStopped() {
        synchronized (lifecycle) {
            return stopped;
        }
    }

    /** Stops listening, closes every connection (delayed requests are not forwarded) and ends its threads. */
    @Override
    public void close() {
        Thread accepting;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            closeQuietly(server);
            server = null;
            accepting = acceptor;
            acceptor = null;
        }
        connections.forEach(Connection::abort);
        if (accepting != null) {
            try {
                accepting.join(CLOSE_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        workers.shutdownNow();
        if (transactions != null) {
            transactions.close();
        }
        if (indexLag != null) {
            indexLag.close();
        }
        try {
            if (!workers.awaitTermination(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                System.err.println("DynamoDbFaultProxy on port " + port + ": connection threads still running after "
                        + CLOSE_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the fault proxy on port " + port + " is closed");
        }
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
        return acceptedConnections.get();
    }

    private void record(String operation, Exchange.Outcome outcome, Optional<FaultHandle> fault) {
        synchronized (exchanges) {
            exchanges.add(new Exchange(sequence.incrementAndGet(), Instant.now(), operation, outcome,
                    fault.map(FaultHandle::fault)));
        }
    }

    // ------------------------------------------------------------------------------------------ connections

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port), 128);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private ServerSocket listenAgain() {
        long deadline = System.nanoTime() + REBIND_TIMEOUT.toNanos();
        while (true) {
            try {
                return listen(port);
            } catch (BindException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot listen on " + LOOPBACK + ":" + port + " again after "
                            + REBIND_TIMEOUT + "; another socket took the port while the proxy was stopped", e);
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(20); // polling the OS for a free port; nothing to wait on
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while listening on port " + port + " again", e);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + LOOPBACK + ":" + port + " again", e);
            }
        }
    }

    /** Starts the thread that accepts on {@code listening}; called with {@code lifecycle} held or before publication. */
    private void startAccepting(ServerSocket listening) {
        Thread accepting = new Thread(() -> accept(listening), "dynamodb-fault-proxy-" + port + "-accept");
        accepting.setDaemon(true);
        acceptor = accepting;
        accepting.start();
    }

    /** Accepts until {@code listening} is closed by {@link #stop()} or {@link #close()}. */
    private void accept(ServerSocket listening) {
        while (true) {
            Socket socket;
            try {
                socket = listening.accept();
            } catch (IOException e) {
                return;
            }
            Connection connection = new Connection(socket, new Upstream(engine));
            synchronized (lifecycle) {
                if (server != listening) { // stopped or closed meanwhile
                    connection.abort();
                    continue;
                }
                connections.add(connection);
                acceptedConnections.incrementAndGet();
            }
            try {
                workers.execute(() -> serve(connection));
            } catch (RejectedExecutionException e) {
                connection.abort();
                connections.remove(connection);
                connection.ended();
            }
        }
    }

    /** Serves one client connection, one request after the other, until either side closes it. */
    private void serve(Connection connection) {
        connection.bind(Thread.currentThread());
        try {
            Socket client = connection.client;
            client.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(client.getInputStream());
            OutputStream out = new BufferedOutputStream(client.getOutputStream());
            boolean open = true;
            while (open) {
                Optional<Http.Head> head = Http.readHead(in);
                if (head.isEmpty()) {
                    return;
                }
                Http.Head requestHead = head.get();
                if (requestHead.hasToken("Expect", "100-continue")) {
                    out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    requestHead = requestHead.without("Expect");
                }
                open = handle(connection, Http.readRequest(in, requestHead), out);
            }
        } catch (IOException e) {
            // the client went away, the proxy aborted the connection, or the engine failed (reported in forward)
        } catch (InterruptedException e) {
            // stop() or close() ended a delay: the request is not forwarded
        } catch (RuntimeException e) {
            System.err.println("DynamoDbFaultProxy on port " + port + ": closing a connection after " + e);
            e.printStackTrace();
        } finally {
            connection.abort();
            connections.remove(connection);
            connection.unbind();
            connection.ended();
        }
    }

    /** Handles one request; returns whether the connection stays open for the next. */
    private boolean handle(Connection connection, Http.Message request, OutputStream out)
            throws IOException, InterruptedException {
        String operation = operationOf(request.head());
        if (isStoppedOrClosed()) {
            record(operation, Exchange.Outcome.REFUSED_WHILE_STOPPED, Optional.empty());
            return false;
        }
        Optional<FaultHandle> hit = claim(operation, new String(request.body(), StandardCharsets.UTF_8));
        Fault.Action action = hit.map(handle -> handle.fault().action()).orElse(null);
        record(operation, outcomeOf(action), hit);
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

    /** Forwards the request and answers with the engine's successful answer rewritten; an error goes through as it is. */
    private boolean answerRewritten(Connection connection, Http.Message request, Fault.Action.RewriteAnswer rewrite,
                                    OutputStream out) throws IOException, InterruptedException {
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
    private boolean processPartly(Connection connection, Http.Message request, int processed, OutputStream out)
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
                new Http.Header("x-amzn-RequestId", requestId()),
                new Http.Header("Content-Type", "application/x-amz-json-1.0"),
                new Http.Header("Content-Length", Integer.toString(answerBody.length))));
        Http.write(out, head, answerBody);
        return !request.head().closes();
    }

    private boolean forward(Connection connection, Http.Message request, OutputStream out)
            throws IOException, InterruptedException {
        Http.Message response = forwardedAnswer(connection, request);
        Http.write(out, response.head(), response.body());
        return !(request.head().closes() || response.head().closes());
    }

    /**
     * The engine's answer, or with transaction emulation the emulated transaction's answer (under the exclusive
     * lock) and every other answer under the shared lock.
     */
    private Http.Message forwardedAnswer(Connection connection, Http.Message request)
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

    /** The engine's answer, with index queries answered from the lagging view where the options ask for one. */
    private Http.Message lagged(Connection connection, Http.Message request) throws IOException {
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

    private Http.Message exchange(Connection connection, Http.Message request) throws IOException {
        try {
            return connection.upstream.exchange(request);
        } catch (IOException e) {
            if (!isStoppedOrClosed()) {
                System.err.println("DynamoDbFaultProxy on port " + port + ": no answer from the engine at " + target
                        + " to " + operationOf(request.head()) + " (" + e + "); closing the client connection");
            }
            throw e;
        }
    }

    private static void answerError(OutputStream out, int status, String reason, String type, String message)
            throws IOException {
        byte[] body = ("{\"__type\":\"" + json(type) + "\",\"message\":\"" + json(message) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        Http.Head head = new Http.Head("HTTP/1.1 " + status + " " + reason, List.of(
                new Http.Header("x-amzn-RequestId", requestId()),
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

    private boolean isStoppedOrClosed() {
        synchronized (lifecycle) {
            return stopped || closed;
        }
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

    private static void closeQuietly(Closeable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (IOException ignored) {
            // closing is all that is wanted
        }
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
     * @param nanoClock                 what that memory is measured on (nanoseconds); a test moves its own
     * @param lagIndexes                index queries answer from a view the test brings up to date
     *                                  ({@link IndexLag}) instead of the engine's own indexes
     */
    public record Options(boolean emulateTransactions, Duration clientRequestTokenMemory, LongSupplier nanoClock,
                          boolean lagIndexes) {

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
            return new Options(false, DYNAMODB_TOKEN_MEMORY, System::nanoTime, false);
        }

        /** Answer TransactWriteItems with the emulation. */
        public Options emulatingTransactions() {
            return new Options(true, clientRequestTokenMemory, nanoClock, lagIndexes);
        }

        /** Remember a completed transaction's ClientRequestToken for this long instead of 10 minutes. */
        public Options withClientRequestTokenMemory(Duration memory) {
            return new Options(emulateTransactions, memory, nanoClock, lagIndexes);
        }

        /** Measure the token memory on this clock (nanoseconds), which a test moves instead of waiting. */
        public Options measuredBy(LongSupplier clock) {
            return new Options(emulateTransactions, clientRequestTokenMemory, clock, lagIndexes);
        }

        /**
         * Let the global secondary indexes lag ({@link IndexLag}): a Query on an index sees no change made since
         * the last {@link IndexLag#release()}, as on DynamoDB, where an index is eventually consistent.
         */
        public Options withIndexLag() {
            return new Options(emulateTransactions, clientRequestTokenMemory, nanoClock, true);
        }

        /** Remember no ClientRequestToken: a retried transaction runs again, as after DynamoDB's 10 minutes. */
        public Options withoutClientRequestTokenMemory() {
            return withClientRequestTokenMemory(Duration.ZERO);
        }
    }

    /** A client connection, its connection to the engine, and the thread serving them. */
    private static final class Connection {
        final Socket client;
        final Upstream upstream;
        private final CountDownLatch end = new CountDownLatch(1);
        private Thread thread; // guarded by this

        Connection(Socket client, Upstream upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        synchronized void bind(Thread serving) {
            thread = serving;
        }

        /** Called when serving ends; clears an interrupt from {@link #abort()} before the pool reuses the thread. */
        synchronized void unbind() {
            thread = null;
            Thread.interrupted();
        }

        /** Marks the connection as no longer served: its thread has left every socket call. */
        void ended() {
            end.countDown();
        }

        /** Whether the connection ended within {@code nanos}. */
        boolean awaitEnd(long nanos) throws InterruptedException {
            return end.await(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        }

        /** Closes both sides and wakes the serving thread if it sleeps in a delay. */
        synchronized void abort() {
            closeQuietly(client);
            upstream.close();
            if (thread != null && thread != Thread.currentThread()) {
                thread.interrupt();
            }
        }

        /** Closes the client connection with a TCP RST instead of a FIN. */
        void reset() {
            try {
                client.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // closing is what matters
            }
            closeQuietly(client);
        }
    }
}

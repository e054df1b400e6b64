package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connection handling of a {@link DynamoDbFaultProxy}: its listening socket on 127.0.0.1, the thread that
 * accepts on it, one platform thread per client connection reading requests one after the other (answering
 * {@code Expect: 100-continue} itself) and handing each to {@link ProxyRequests}; and stopping, resuming and
 * closing all of it. What happens to a request (forwarded, or hit by a fault) is decided there, not here.
 */
final class ProxyListener {

    static final String LOOPBACK = "127.0.0.1";

    /** How long {@link #resume()} keeps trying to listen on the port again before it gives up. */
    private static final Duration REBIND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final InetSocketAddress engine;
    private final int port;
    private final ProxyRequests requests;
    private final ExecutorService workers;
    private final Set<ClientConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger acceptedConnections = new AtomicInteger();

    private final Object lifecycle = new Object();
    private ServerSocket server; // guarded by lifecycle; null while stopped or closed
    private Thread acceptor; // guarded by lifecycle; the thread accepting on server, null while stopped or closed
    private boolean stopped; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle

    ProxyListener(InetSocketAddress engine, ServerSocket server, ProxyRequests requests) {
        this.engine = engine;
        this.requests = requests;
        this.server = server;
        this.port = server.getLocalPort();
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "dynamodb-fault-proxy-" + port + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts accepting on the socket the listener was made with. */
    void start() {
        synchronized (lifecycle) {
            startAccepting(server);
        }
    }

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
    void stop() {
        Thread accepting;
        synchronized (lifecycle) {
            requireOpen();
            if (stopped) {
                return;
            }
            stopped = true;
            ClientConnection.closeQuietly(server);
            server = null;
            accepting = acceptor;
            acceptor = null;
        }
        List<ClientConnection> open = List.copyOf(connections);
        open.forEach(ClientConnection::abort);
        awaitEnd(accepting, open);
    }

    /** Waits until the thread that accepted on a closed listening socket and the aborted connections' threads end. */
    private void awaitEnd(Thread accepting, List<ClientConnection> aborted) {
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        try {
            if (accepting != null && accepting != Thread.currentThread()) {
                accepting.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (accepting.isAlive()) {
                    throw new IllegalStateException("the fault proxy on port " + port
                            + " still accepts connections " + CLOSE_TIMEOUT + " after closing its socket");
                }
            }
            for (ClientConnection connection : aborted) {
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
    void resume() {
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
    boolean isStopped() {
        synchronized (lifecycle) {
            return stopped;
        }
    }

    /**
     * Stops listening, closes every connection (delayed requests are not forwarded) and ends its threads;
     * {@code beforeAwaiting} runs once the connection threads were told to end, before they are waited for.
     */
    void close(Runnable beforeAwaiting) {
        Thread accepting;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            ClientConnection.closeQuietly(server);
            server = null;
            accepting = acceptor;
            acceptor = null;
        }
        connections.forEach(ClientConnection::abort);
        if (accepting != null) {
            try {
                accepting.join(CLOSE_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        workers.shutdownNow();
        beforeAwaiting.run();
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

    /** How many client connections were accepted. */
    int acceptedConnections() {
        return acceptedConnections.get();
    }

    boolean isStoppedOrClosed() {
        synchronized (lifecycle) {
            return stopped || closed;
        }
    }

    static ServerSocket listen(int port) throws IOException {
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

    /** Accepts until {@code listening} is closed by {@link #stop()} or {@link #close(Runnable)}. */
    private void accept(ServerSocket listening) {
        while (true) {
            Socket socket;
            try {
                socket = listening.accept();
            } catch (IOException e) {
                return;
            }
            ClientConnection connection = new ClientConnection(socket, new Upstream(engine));
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
    private void serve(ClientConnection connection) {
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
                open = requests.handle(connection, Http.readRequest(in, requestHead), out);
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
}

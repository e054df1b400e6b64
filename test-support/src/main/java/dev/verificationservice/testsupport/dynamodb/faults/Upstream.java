package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * The proxy's connection to the engine for one client connection, kept alive between requests like the
 * client's own.
 *
 * <p>A keep-alive connection the engine has closed while idle cannot be told apart from one that lost a
 * request, and a request must not be sent twice behind the test's back. So the connection is not reused
 * after {@link #MAX_IDLE} (Node.js closes idle connections after 5 s), and any failure ends it without a
 * retry: the client connection is closed and the SDK decides, as it would on a real network.
 */
final class Upstream implements AutoCloseable {

    static final Duration MAX_IDLE = Duration.ofSeconds(2);
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final InetSocketAddress engine;
    private volatile Socket socket;
    private InputStream in;
    private OutputStream out;
    private long idleSince;

    Upstream(InetSocketAddress engine) {
        this.engine = engine;
    }

    /** Sends the request and returns the engine's final answer, its body framed by Content-Length. */
    synchronized Http.Message exchange(Http.Message request) throws IOException {
        if (socket != null && System.nanoTime() - idleSince > MAX_IDLE.toNanos()) {
            close();
        }
        if (socket == null) {
            open();
        }
        try {
            Http.write(out, request.head(), request.body());
            Http.Head head;
            do { // interim answers (100 Continue) are not passed on: the proxy answered Expect itself
                head = Http.readHead(in).orElseThrow(() -> new EOFException(
                        "the engine at " + engine + " closed the connection without answering"));
            } while (head.status() / 100 == 1);
            Http.Message response = Http.readResponse(in, head, request.head().method());
            if (response.head().closes() || request.head().closes()) {
                close();
            } else {
                idleSince = System.nanoTime();
            }
            return response;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void open() throws IOException {
        Socket opened = new Socket();
        try {
            opened.setTcpNoDelay(true);
            opened.connect(engine, CONNECT_TIMEOUT_MILLIS);
            in = new BufferedInputStream(opened.getInputStream());
            out = new BufferedOutputStream(opened.getOutputStream());
            socket = opened;
        } catch (IOException e) {
            opened.close();
            throw new IOException("cannot connect to the engine at " + engine + ": " + e.getMessage(), e);
        }
    }

    /** Closes the connection; safe from another thread to abort a request in flight. */
    @Override
    public void close() {
        Socket current = socket;
        socket = null;
        if (current != null) {
            try {
                current.close();
            } catch (IOException ignored) {
                // already gone
            }
        }
    }
}

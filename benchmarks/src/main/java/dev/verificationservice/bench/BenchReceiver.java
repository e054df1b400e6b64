package dev.verificationservice.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A webhook receiver for the load run: the JDK's HTTP server on a free loopback port, answering 204 to every event
 * and counting them; {@link #register} makes it the server's one endpoint through the operator API.
 */
final class BenchReceiver implements AutoCloseable {

    static final String ADMIN_KEY = "bench-admin-key-0123456789abcdefghijklmn";

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final AtomicLong received = new AtomicLong();

    BenchReceiver() {
        server = onLoopback(threads);
        server.createContext("/hook", exchange -> {
            try (exchange; InputStream body = exchange.getRequestBody()) {
                body.readAllBytes();
                exchange.sendResponseHeaders(204, -1);
                synchronized (received) {
                    received.incrementAndGet();
                    received.notifyAll();
                }
            }
        });
        server.start();
    }

    /**
     * Registers this receiver for the events of sends and verifications with the server at {@code base}, then sends
     * one code and waits until its event arrives: the relay fans out oldest first, so by then the events of the
     * prepared data have been fanned out and the measured run sees the relay's steady work, not a backlog.
     */
    void register(String base, Duration patience) {
        post(base + "/v1/admin/webhooks", ADMIN_KEY, "{\"url\":\"http://localhost:" + server.getAddress().getPort()
                + "/hook\",\"eventTypes\":[\"code.sent\",\"code.verified\"]}", 201);
        post(base + "/v1/codes", Fixtures.API_KEY, "{\"userId\":\"bench-webhook-first\",\"codeType\":"
                + "\"EMAIL_VERIFICATION\",\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"first@example.com\"}", 202);
        long deadline = System.nanoTime() + patience.toNanos();
        synchronized (received) {
            while (received.get() == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("no event reached the receiver within " + patience);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(received, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static void post(String url, String key, String body, int expected) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != expected) {
                throw new IllegalStateException("POST " + url + " answered " + answer.statusCode() + ": " + answer.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The JDK's HTTP server on a free loopback port, its handlers run on {@code threads}; not started yet. */
    static HttpServer onLoopback(ExecutorService threads) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(threads);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long received() {
        return received.get();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}

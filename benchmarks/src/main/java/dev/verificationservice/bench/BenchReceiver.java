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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(threads);
        server.createContext("/hook", exchange -> {
            try (exchange; InputStream body = exchange.getRequestBody()) {
                body.readAllBytes();
                received.incrementAndGet();
                exchange.sendResponseHeaders(204, -1);
            }
        });
        server.start();
    }

    /** Registers this receiver for every event type with the server at {@code base}. */
    void register(String base) {
        String body = "{\"url\":\"http://localhost:" + server.getAddress().getPort() + "/hook\"}";
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/admin/webhooks"))
                .header("Authorization", "Bearer " + ADMIN_KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 201) {
                throw new IllegalStateException("registering the endpoint answered " + answer.statusCode() + ": "
                        + answer.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
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

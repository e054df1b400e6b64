package dev.verificationservice.testsupport.webhooks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A real webhook receiver for tests: the JDK's {@link HttpServer} on a free loopback port, recording every request
 * (headers and body as received) and answering with the status the test sets, or holding the request until
 * {@link #release()} (a hanging receiver). Endpoints point at {@code http://localhost:<port>/hook}, the one plain-http
 * target the service accepts.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One request as it arrived; header names lower case. */
    public record Received(Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final AtomicInteger status = new AtomicInteger(204);
    private final AtomicInteger holding = new AtomicInteger();
    private volatile CountDownLatch hold;

    public WebhookReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/hook", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    public String url() {
        return "http://localhost:" + server.getAddress().getPort() + "/hook";
    }

    /** The status later requests are answered with. */
    public WebhookReceiver answering(int code) {
        status.set(code);
        return this;
    }

    /** Later requests are recorded, then held unanswered until {@link #release()}. */
    public WebhookReceiver hanging() {
        hold = new CountDownLatch(1);
        return this;
    }

    /** How many requests are being held right now. */
    public int held() {
        return holding.get();
    }

    public void release() {
        CountDownLatch latch = hold;
        hold = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    /**
     * Waits for the next request that matches (others are kept for later calls); fails after {@code patience} so a
     * lost event ends the test instead of hanging it.
     */
    public Received next(Predicate<Received> wanted, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        List<Received> skipped = new ArrayList<>();
        try {
            while (true) {
                Received request = received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (request == null) {
                    throw new AssertionError("no matching webhook request arrived within " + patience);
                }
                if (wanted.test(request)) {
                    return request;
                }
                skipped.add(request);
            }
        } finally {
            received.addAll(skipped);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> headers = new TreeMap<>();
            exchange.getRequestHeaders().forEach((name, values) ->
                    headers.put(name.toLowerCase(Locale.ROOT), String.join(",", values)));
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(new Received(headers, body));
            CountDownLatch latch = hold;
            if (latch != null) {
                holding.incrementAndGet();
                try {
                    latch.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    holding.decrementAndGet();
                }
            }
            exchange.sendResponseHeaders(status.get(), -1);
        }
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        threads.shutdownNow();
    }
}

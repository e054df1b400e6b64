package dev.verificationservice.testsupport.webhooks;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real webhook receiver for tests: a JDK {@link HttpServer} on localhost, port 0, that records every request and
 * answers the statuses it is scripted with (then 204), or hangs until {@link #close} when told to. It counts the
 * requests of each {@code webhook-id}, so a test sees duplicates.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One request as it arrived. */
    public record Received(String id, String timestamp, String signature, String contentType, byte[] body) {

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ConcurrentLinkedQueue<Integer> script = new ConcurrentLinkedQueue<>();
    private final List<Received> received = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, AtomicInteger> perId = new ConcurrentHashMap<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger hanging = new AtomicInteger();
    private volatile boolean hangs;

    public WebhookReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                byte[] body = in.readAllBytes();
                var headers = exchange.getRequestHeaders();
                Received request = new Received(headers.getFirst("webhook-id"), headers.getFirst("webhook-timestamp"),
                        headers.getFirst("webhook-signature"), headers.getFirst("content-type"), body);
                if (hangs) {
                    synchronized (hanging) {
                        hanging.incrementAndGet();
                        hanging.notifyAll();
                    }
                    released.await();
                    return;
                }
                Integer status = script.poll();
                // Recorded before the answer: once the sender has its answer, a test may read what arrived.
                perId.computeIfAbsent(String.valueOf(request.id()), id -> new AtomicInteger()).incrementAndGet();
                synchronized (received) {
                    received.add(request);
                    received.notifyAll();
                }
                exchange.sendResponseHeaders(status == null ? 204 : status, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    /** {@code http://localhost:<port>/hook}: the one plain-http name the service accepts. */
    public URI url() {
        return URI.create("http://localhost:" + server.getAddress().getPort() + "/hook");
    }

    /** The next requests are answered with these statuses, in order; later ones with 204. */
    public WebhookReceiver answering(Integer... statuses) {
        script.addAll(List.of(statuses));
        return this;
    }

    /** Every request from now on waits, unanswered, until {@link #close}. */
    public WebhookReceiver hanging() {
        hangs = true;
        return this;
    }

    /** Requests held by {@link #hanging} right now. */
    public int hangingNow() {
        return hanging.get();
    }

    /**
     * Waits until {@link #hanging} holds at least {@code count} requests, or the timeout passed; whether it does. A
     * request is held only once the sender's connection reached this server, which can come after its other work.
     */
    public boolean awaitHanging(int count, java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (hanging) {
            while (hanging.get() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(hanging, left);
            }
            return true;
        }
    }

    public List<Received> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    /** Waits until at least {@code count} requests were answered, or the timeout passed; whether they were. */
    public boolean awaitReceived(int count, java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (received) {
            while (received.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(received, left);
            }
            return true;
        }
    }

    /**
     * Waits until at least {@code count} answered requests match {@code wanted}; answers the latest of them, or fails
     * after {@code timeout} (a lost event ends the test instead of hanging it).
     */
    public Received awaitMatching(java.util.function.Predicate<Received> wanted, int count, java.time.Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (received) {
            while (true) {
                List<Received> matching = received.stream().filter(wanted).toList();
                if (matching.size() >= count) {
                    return matching.get(matching.size() - 1);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(matching.size() + " of " + count + " matching webhook requests arrived "
                            + "within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(received, left);
            }
        }
    }

    /** Stops hanging: the held requests end unanswered, later ones are answered again. */
    public void release() {
        hangs = false;
        released.countDown();
    }

    /** How many webhook-ids arrived more than once. */
    public long duplicates() {
        return perId.values().stream().filter(count -> count.get() > 1).count();
    }

    /** Distinct webhook-ids received. */
    public int distinctIds() {
        return perId.size();
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
        threads.shutdownNow();
        try {
            threads.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

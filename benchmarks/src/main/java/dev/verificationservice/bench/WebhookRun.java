package dev.verificationservice.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.EventIds;
import dev.verificationservice.events.JdkWebhookTransport;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.RelayRunner;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.events.WebhookSettings;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The webhook relay on the embedded store ({@code bench/run webhooks}), in this process: the store, the relay and
 * its runner as the starter wires them (the JDK transport, real HTTP to JDK HTTP servers on loopback ports), with
 * {@link WebhookSettings#defaults()} except that loopback receivers are allowed and, for the drain, the per-endpoint
 * concurrency. In-process rather than against the server jar, so that events are written straight through the audit
 * API at a known moment and the store calls the relay makes can be counted and timed by the thread that makes them.
 *
 * <ul>
 *   <li><b>Warm-up</b>: one drain of {@value #WARM_UP_EVENTS} events first, not reported, so that no measured row
 *   runs code the JIT has not compiled yet.</li>
 *   <li><b>Drain</b>: a backlog of audit entries written first (the relay not running), one endpoint answering 204
 *   at once; events per second from the runner's start to the last distinct webhook-id arriving.</li>
 *   <li><b>Beside hanging ones</b>: five endpoints that never answer (each request held until the run ends) and one
 *   that answers 204; events written at a steady rate; the healthy endpoint's latency from just before each
 *   event's audit write to its arrival.</li>
 * </ul>
 */
final class WebhookRun {

    /** The product's goal for one fast endpoint on the embedded store. */
    static final double DRAIN_GOAL = 500;
    /** Events of the drain that warms the JVM up before the measured ones. */
    static final int WARM_UP_EVENTS = 2000;
    /** The product's goal for a healthy endpoint beside hanging ones. */
    static final double BESIDE_P99_GOAL_MILLIS = 1000;

    /** One drain: the events, the time they took, the writer's work and where the relay's store time went. */
    record Drain(int perEndpointConcurrency, int written, int events, double seconds, double firstSeconds,
                 long transactions, long commits, Map<String, double[]> storeCalls, String load) {

        /** The poller thread's time in store calls (fan-out and hand-outs), in milliseconds. */
        double pollerMillis() {
            return storeCalls.entrySet().stream().filter(call -> call.getKey().endsWith("(poller)"))
                    .mapToDouble(call -> call.getValue()[1]).sum();
        }


        /** Events that arrived per second; fewer than written count only what arrived within the patience. */
        double eventsPerSecond() {
            return events / seconds;
        }
    }

    /** The healthy endpoint's latencies beside the hanging ones. */
    record Beside(int hanging, int written, int arrived, double ratePerSecond, double seconds, double p50Millis,
                  double p99Millis, double maxMillis, int heldAtHanging, String load) {
    }

    /** The drains by concurrency; the healthy endpoint alone (the control) and beside the hanging ones. */
    record Results(List<Drain> drains, Beside alone, Beside beside) {
    }

    private WebhookRun() {
    }

    static Results run(boolean quick, Consumer<String> log) {
        int events = quick ? 1000 : 5000;
        // Not reported: the JVM's first drain runs the relay's code before the JIT has compiled it, and would
        // charge that to whichever row came first.
        Drain warmUp = drain(WARM_UP_EVENTS, WebhookSettings.defaults().perEndpointConcurrency(), log);
        log.accept(String.format(Locale.ROOT, "webhooks warm-up drain (not reported): %,d events, %.0f events/s",
                warmUp.events(), warmUp.eventsPerSecond()));
        List<Drain> drains = new ArrayList<>();
        for (int concurrency : List.of(2, 4, 8, 16)) {
            Drain drain = drain(events, concurrency, log);
            log.accept(String.format(Locale.ROOT, "webhooks drain, %d per endpoint: %,d of %,d events in %.2f s, %.0f "
                            + "events/s; %d writer transactions, %d commits (load %s)", concurrency, drain.events(),
                    drain.written(), drain.seconds(),
                    drain.eventsPerSecond(), drain.transactions(), drain.commits(), drain.load()));
            drain.storeCalls().forEach((call, figures) -> log.accept(String.format(Locale.ROOT,
                    "  %s: %,.0f calls, %,.0f ms in all", call, figures[0], figures[1])));
            drains.add(drain);
        }
        Duration writing = quick ? Duration.ofSeconds(5) : Duration.ofSeconds(20);
        List<Beside> runs = new ArrayList<>();
        // The healthy endpoint alone first: what the poll interval costs without any hanging endpoint.
        for (int hanging : List.of(0, 5)) {
            Beside run = beside(hanging, 50, writing, log);
            log.accept(String.format(Locale.ROOT, "webhooks beside %d hanging: %d of %d arrived, p50 %.1f ms, p99 %.1f "
                            + "ms, max %.1f ms; %d requests held at the hanging receivers (load %s)", run.hanging(),
                    run.arrived(), run.written(), run.p50Millis(), run.p99Millis(), run.maxMillis(),
                    run.heldAtHanging(), run.load()));
            runs.add(run);
        }
        return new Results(drains, runs.get(0), runs.get(1));
    }

    /** The shipped settings, loopback receivers allowed, with the per-endpoint concurrency given. */
    private static WebhookSettings settings(int perEndpointConcurrency) {
        WebhookSettings shipped = WebhookSettings.defaults();
        return new WebhookSettings(true, shipped.workers(), perEndpointConcurrency, shipped.pollInterval(),
                shipped.batchSize());
    }

    static Drain drain(int events, int perEndpointConcurrency, Consumer<String> log) {
        try (BenchStores.Opened opened = BenchStores.embedded(BenchStores.temporaryDirectory());
             Receiver receiver = Receiver.answering()) {
            Relay relay = new Relay(opened, settings(perEndpointConcurrency));
            relay.webhooks.register(receiver.url(), List.of(), Optional.empty());
            writeBacklog(relay.verification, events);
            log.accept("webhooks drain, " + perEndpointConcurrency + " per endpoint: " + events
                    + " audit entries written; relay started");
            long[] before = SqliteFiles.writerCounts((SqliteVerificationStore) opened.store);
            relay.calls.clear();
            long started = System.nanoTime();
            try (RelayRunner runner = new RelayRunner(relay.relay, relay.settings).start()) {
                receiver.awaitDistinct(events, Duration.ofMinutes(10));
            }
            double seconds = (receiver.lastArrival() - started) / 1e9;
            double first = (receiver.arrivals.values().stream().mapToLong(Long::longValue).min().orElse(started)
                    - started) / 1e9;
            long[] after = SqliteFiles.writerCounts((SqliteVerificationStore) opened.store);
            return new Drain(perEndpointConcurrency, events, receiver.arrivals.size(), seconds, first, after[0] - before[0], after[1] - before[1],
                    relay.calls.snapshot(), Suite.loadAverage());
        }
    }

    /** The backlog, written by 8 threads so that group commit shares the syncs (the relay is not running yet). */
    private static void writeBacklog(Verification verification, int events) {
        ExecutorService writers = Executors.newFixedThreadPool(8);
        AtomicInteger next = new AtomicInteger();
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int thread = 0; thread < 8; thread++) {
            done.add(writers.submit(() -> {
                for (int i = next.getAndIncrement(); i < events; i = next.getAndIncrement()) {
                    write(verification, "bench-hook-" + i);
                }
            }));
        }
        try {
            for (java.util.concurrent.Future<?> each : done) {
                each.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            writers.shutdownNow();
        }
    }

    private static AuditEntry write(Verification verification, String user) {
        return verification.audit().recordSuccess(user, AuditEventType.CODE_SENT, Map.of("codeType",
                "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL", "deliveryTarget", "b***@example.com"),
                ClientContext.none());
    }

    static Beside beside(int hanging, int perSecond, Duration writing, Consumer<String> log) {
        List<Receiver> dead = new ArrayList<>();
        try (BenchStores.Opened opened = BenchStores.embedded(BenchStores.temporaryDirectory());
             Receiver healthy = Receiver.answering()) {
            Relay relay = new Relay(opened, settings(WebhookSettings.defaults().perEndpointConcurrency()));
            for (int i = 0; i < hanging; i++) {
                Receiver receiver = Receiver.hanging();
                dead.add(receiver);
                relay.webhooks.register(receiver.url(), List.of(), Optional.empty());
            }
            relay.webhooks.register(healthy.url(), List.of(), Optional.empty());
            Map<String, Long> writtenAt = new ConcurrentHashMap<>();
            ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
            AtomicInteger written = new AtomicInteger();
            int total = (int) (perSecond * writing.toSeconds());
            RelayRunner runner = new RelayRunner(relay.relay, relay.settings).start();
            try {
                log.accept("webhooks beside " + hanging + " hanging: writing " + perSecond + " events/s for "
                        + writing.toSeconds() + " s");
                long started = System.nanoTime();
                writer.scheduleAtFixedRate(() -> {
                    int i = written.getAndIncrement();
                    if (i >= total) {
                        return;
                    }
                    long before = System.nanoTime();
                    writtenAt.put(EventIds.of(write(relay.verification, "bench-beside-" + i)), before);
                }, 0, 1_000_000 / perSecond, TimeUnit.MICROSECONDS);
                while (written.get() < total) {
                    TimeUnit.MILLISECONDS.sleep(50);
                }
                writer.shutdown();
                writer.awaitTermination(1, TimeUnit.MINUTES);
                double seconds = (System.nanoTime() - started) / 1e9;
                // What is still on its way gets a few seconds more, then counts as not arrived.
                healthy.awaitDistinct(total, Duration.ofSeconds(10));
                String load = Suite.loadAverage();
                List<Double> latencies = new ArrayList<>();
                writtenAt.forEach((eventId, at) -> {
                    Long arrived = healthy.arrivals.get(eventId);
                    if (arrived != null) {
                        latencies.add((arrived - at) / 1e6);
                    }
                });
                Collections.sort(latencies);
                int held = dead.stream().mapToInt(Receiver::held).sum();
                return new Beside(hanging, writtenAt.size(), latencies.size(), perSecond, seconds,
                        percentile(latencies, 0.50), percentile(latencies, 0.99),
                        latencies.isEmpty() ? Double.NaN : latencies.get(latencies.size() - 1), held, load);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                writer.shutdownNow();
                // The hanging receivers let go first, so that the attempts they hold end now, not at their timeout.
                dead.forEach(Receiver::close);
                runner.close();
            }
        } finally {
            dead.forEach(Receiver::close);
        }
    }

    private static double percentile(List<Double> sorted, double fraction) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(fraction * sorted.size()) - 1));
    }

    /** The core, the operator's webhook service and the relay on one store, as the starter wires them. */
    private static final class Relay {
        final Verification verification;
        final Webhooks webhooks;
        final WebhookRelay relay;
        final WebhookSettings settings;
        final StoreCalls calls = new StoreCalls();

        Relay(BenchStores.Opened opened, WebhookSettings settings) {
            Clock clock = Clock.systemUTC();
            EndpointUrls urls = new EndpointUrls(settings.allowPrivateAddresses(), AddressResolver.system());
            this.settings = settings;
            this.verification = Fixtures.verification(opened.store, new Fixtures.KeepingSender());
            this.webhooks = new Webhooks(opened.store.webhooks(), EncryptionKeyRing.fromBase64(
                    List.of(Fixtures.ENCRYPTION_KEY)), urls, new SecureTokens(), clock);
            this.relay = new WebhookRelay(calls.around(opened.store.webhooks()), webhooks, urls,
                    new JdkWebhookTransport(), verification.audit(), RelayMetrics.none(), clock, "bench-relay");
        }
    }

    /**
     * The relay's store calls, counted and timed (wall time) per method and per thread of the runner: the poller
     * (fan-out and hand-outs) or the workers (lease, endpoint read, outcome).
     */
    static final class StoreCalls {
        private final ConcurrentHashMap<String, LongAdder[]> calls = new ConcurrentHashMap<>();

        WebhookRepository around(WebhookRepository store) {
            return (WebhookRepository) Proxy.newProxyInstance(WebhookRepository.class.getClassLoader(),
                    new Class<?>[] {WebhookRepository.class}, (proxy, method, args) -> {
                        long started = System.nanoTime();
                        try {
                            return method.invoke(store, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        } finally {
                            String thread = Thread.currentThread().getName();
                            String where = thread.startsWith("webhook-relay-poll") ? "poller"
                                    : thread.startsWith("webhook-relay-send") ? "workers" : "other";
                            LongAdder[] figures = calls.computeIfAbsent(method.getName() + " (" + where + ")",
                                    key -> new LongAdder[] {new LongAdder(), new LongAdder()});
                            figures[0].increment();
                            figures[1].add(System.nanoTime() - started);
                        }
                    });
        }

        void clear() {
            calls.clear();
        }

        /** Per call and thread: {calls, milliseconds in all}. */
        Map<String, double[]> snapshot() {
            Map<String, double[]> copy = new TreeMap<>();
            calls.forEach((call, figures) -> copy.put(call, new double[] {figures[0].sum(), figures[1].sum() / 1e6}));
            return copy;
        }
    }

    /**
     * A receiver on a free loopback port: one that answers 204 at once and notes when each distinct webhook-id first
     * arrived, or one that never answers (the exchange is kept open, holding no thread, until it is closed).
     */
    static final class Receiver implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService threads = Executors.newFixedThreadPool(2);
        final Map<String, Long> arrivals = new ConcurrentHashMap<>();
        private final List<HttpExchange> heldOpen = Collections.synchronizedList(new ArrayList<>());
        private volatile long lastArrival;
        private volatile boolean closed;

        private Receiver(boolean answers) {
            server = BenchReceiver.onLoopback(threads);
            server.createContext("/hook", exchange -> {
                if (!answers) {
                    heldOpen.add(exchange);
                    return;
                }
                try (exchange; InputStream body = exchange.getRequestBody()) {
                    body.readAllBytes();
                    exchange.sendResponseHeaders(204, -1);
                    String id = exchange.getRequestHeaders().getFirst("webhook-id");
                    long now = System.nanoTime();
                    if (id != null && arrivals.putIfAbsent(id, now) == null) {
                        synchronized (arrivals) {
                            lastArrival = now;
                            arrivals.notifyAll();
                        }
                    }
                }
            });
            server.start();
        }

        static Receiver answering() {
            return new Receiver(true);
        }

        static Receiver hanging() {
            return new Receiver(false);
        }

        String url() {
            return "http://localhost:" + server.getAddress().getPort() + "/hook";
        }

        long lastArrival() {
            return lastArrival;
        }

        int held() {
            return heldOpen.size();
        }

        /** Waits until {@code count} distinct events arrived, or the patience ran out (then returns all the same). */
        void awaitDistinct(int count, Duration patience) {
            long deadline = System.nanoTime() + patience.toNanos();
            synchronized (arrivals) {
                while (arrivals.size() < count) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(arrivals, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
            }
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            synchronized (heldOpen) {
                for (HttpExchange exchange : heldOpen) {
                    try {
                        exchange.close();
                    } catch (RuntimeException alreadyGone) {
                        // the relay gave up on it first
                    }
                }
            }
            server.stop(0);
            threads.shutdownNow();
        }
    }
}

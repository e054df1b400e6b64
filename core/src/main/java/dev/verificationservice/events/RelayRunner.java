package dev.verificationservice.events;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link WebhookRelay} on threads of its own, apart from the API's: one poller fans events out and hands due
 * deliveries to a bounded pool of workers. An endpoint gets at most {@code perEndpointConcurrency} workers at once
 * (a hanging receiver holds those until the timeout, never the rest), and a delivery that finds no free worker or
 * endpoint slot is left for the next poll, so the queue never grows past the pool.
 *
 * <p>Due deliveries are read per endpoint (each has its own outbox partition), only for endpoints with a free slot,
 * and a few per slot: a dead endpoint's backlog, however long and old, is never read ahead of another endpoint's due
 * work, so it costs the others nothing but the workers it holds. Spring-free; the starter starts and stops it.
 */
public final class RelayRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RelayRunner.class);

    private static final int MAX_BATCHES_PER_POLL = 10;
    /** Due deliveries read per endpoint slot: a few instances' leases ahead of the free ones are passed over. */
    private static final int DUE_PER_SLOT = 4;

    private final WebhookRelay relay;
    private final WebhookSettings settings;
    private final ScheduledExecutorService poller;
    private final ThreadPoolExecutor workers;
    private final ConcurrentHashMap<String, Semaphore> slots = new ConcurrentHashMap<>();
    /** Deliveries this instance is working on, so a poll never hands one out twice. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    /** Polls so far: where the next poll starts among the endpoints. */
    private final AtomicInteger polls = new AtomicInteger();

    public RelayRunner(WebhookRelay relay, WebhookSettings settings) {
        this.relay = relay;
        this.settings = settings;
        this.poller = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "webhook-relay-poll"));
        this.workers = new ThreadPoolExecutor(settings.workers(), settings.workers(), 1, TimeUnit.MINUTES,
                new ArrayBlockingQueue<>(settings.workers()), runnable -> daemon(runnable, "webhook-relay-send"));
    }

    public RelayRunner start() {
        long interval = settings.pollInterval().toMillis();
        poller.scheduleWithFixedDelay(this::pollSafely, 0, interval, TimeUnit.MILLISECONDS);
        return this;
    }

    /** One poll: fan out what is undelivered, then hand due deliveries to free workers. */
    public void poll() {
        // A full batch means more may be waiting; bounded, since a lagging index may answer taken events again.
        for (int batch = 0; batch < MAX_BATCHES_PER_POLL && relay.fanOut(settings.batchSize()) == settings.batchSize();
             batch++) {
            // the condition does the work
        }
        List<String> endpointIds = relay.endpointIds();
        // Each poll starts at the next endpoint, so a full worker pool favours none of them for long.
        int first = endpointIds.isEmpty() ? 0 : Math.floorMod(polls.getAndIncrement(), endpointIds.size());
        for (int i = 0; i < endpointIds.size(); i++) {
            if (!handOut(endpointIds.get((first + i) % endpointIds.size()))) {
                return;
            }
        }
    }

    /**
     * Hands an endpoint's due deliveries to free workers while it has a free slot; an endpoint with none is not read
     * at all. Reads at most the batch size, and no more than {@link #DUE_PER_SLOT} per slot: enough to pass those
     * in flight here or leased by other instances. Answers {@code false} when the worker pool is full.
     */
    private boolean handOut(String endpointId) {
        Semaphore slot = slots.computeIfAbsent(endpointId, id -> new Semaphore(settings.perEndpointConcurrency()));
        if (slot.availablePermits() == 0) {
            return true;
        }
        int limit = Math.min(settings.batchSize(), DUE_PER_SLOT * settings.perEndpointConcurrency());
        for (Delivery delivery : relay.due(endpointId, limit)) {
            String key = delivery.endpointId() + " " + delivery.eventId();
            if (!inFlight.add(key)) {
                continue;
            }
            if (!slot.tryAcquire()) {
                inFlight.remove(key);
                return true;
            }
            try {
                workers.execute(() -> {
                    try {
                        relay.attempt(delivery);
                    } catch (RuntimeException e) {
                        // The lease runs out and the delivery is due again: nothing is lost.
                        LOG.warn("a webhook delivery attempt failed ({}); it is tried again after its lease",
                                e.getClass().getSimpleName());
                    } finally {
                        slot.release();
                        inFlight.remove(key);
                    }
                });
            } catch (RejectedExecutionException full) {
                slot.release();
                inFlight.remove(key);
                return false;
            }
        }
        return true;
    }

    private void pollSafely() {
        try {
            poll();
        } catch (RuntimeException e) {
            LOG.warn("the webhook relay could not poll the store ({}); it tries again in {}",
                    e.getClass().getSimpleName(), settings.pollInterval());
        }
    }

    /**
     * Stops polling and lets the attempts in flight finish (each is bounded by the request timeout), so their
     * outcomes are written; whatever is still running after that is interrupted, and its lease runs out.
     */
    @Override
    public void close() {
        poller.shutdownNow();
        workers.shutdown();
        try {
            if (!workers.awaitTermination(RetrySchedule.TIMEOUT.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}

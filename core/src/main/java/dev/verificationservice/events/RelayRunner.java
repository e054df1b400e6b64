package dev.verificationservice.events;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link WebhookRelay} on threads of its own, apart from the API's.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>A poller, every poll interval, fans undelivered events out into deliveries, then hands out each endpoint's
 *   due deliveries.</li>
 *   <li>An endpoint has {@code perEndpointConcurrency} slots: a delivery is handed out only into a free slot of
 *   its endpoint, and holds it until its outcome is written. Due deliveries are read per endpoint (each has its own
 *   outbox partition), only for an endpoint with a free slot, a few per slot: a dead endpoint's backlog, however
 *   long and old, is never read ahead of another endpoint's due work.</li>
 *   <li>A worker claims the delivery's lease and sends it; no thread waits for the answer (the transport is
 *   asynchronous), so a hanging receiver holds its own endpoint's slots and nothing else: any number of hanging
 *   endpoints leave the workers to the others. When the answer or its timeout comes, a worker writes the
 *   outcome.</li>
 *   <li>As soon as an outcome is written, the slot is free and the endpoint's next due deliveries are handed out
 *   at once, not at the next poll: an endpoint is sent to at the pace it answers. A delivery just settled is
 *   not handed out again for {@link #SETTLED} (an index that lags may still list it as due); a listing that still
 *   shows settled ones may hide the next ones behind them, so it is read again {@link #LOOK_AGAIN} later, until
 *   the next poll would.</li>
 *   <li>A poll the store refuses is tried again after a pause that doubles up to {@link #MAX_PAUSE}, each
 *   failure logged with its reason, and the recovery logged once.</li>
 * </ol>
 * Spring-free; the starter starts and stops it.
 */
public final class RelayRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RelayRunner.class);

    private static final int MAX_BATCHES_PER_POLL = 10;
    /** Due deliveries read per endpoint slot: a few instances' leases ahead of the free ones are passed over. */
    private static final int DUE_PER_SLOT = 4;
    /** The longest pause between polls while the store keeps failing. */
    static final Duration MAX_PAUSE = Duration.ofMinutes(1);
    /** How long a settled delivery is passed over by hand-outs: longer than an index lags behind its table. */
    static final Duration SETTLED = Duration.ofSeconds(2);
    /** How soon a hand-out that met a lagging listing looks again (until the next poll would). */
    private static final Duration LOOK_AGAIN = Duration.ofMillis(100);

    private final WebhookRelay relay;
    private final WebhookSettings settings;
    private final ScheduledExecutorService poller;
    private final ThreadPoolExecutor workers;
    private final ConcurrentHashMap<String, Semaphore> slots = new ConcurrentHashMap<>();
    /** Deliveries this instance is working on, so a hand-out never starts one twice. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    /** Deliveries settled lately, with when (System.nanoTime): passed over while an index may still list them. */
    private final ConcurrentHashMap<String, Long> settled = new ConcurrentHashMap<>();
    /** Attempts started and not yet settled, so that close lets them write their outcomes. */
    private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();
    /** Polls that failed in a row; read and written by the poller only. */
    private int failedPolls;
    private volatile boolean closed;

    public RelayRunner(WebhookRelay relay, WebhookSettings settings) {
        this.relay = relay;
        this.settings = settings;
        this.poller = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "webhook-relay-poll"));
        // Unbounded queue, bounded work: every task is a hand-out into a free slot or the outcome of one.
        this.workers = new ThreadPoolExecutor(settings.workers(), settings.workers(), 1, TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(), runnable -> daemon(runnable, "webhook-relay-send"));
    }

    public RelayRunner start() {
        poller.execute(this::pollThenWait);
        return this;
    }

    /** One poll: fan out what is undelivered, then hand each endpoint's due deliveries to its free slots. */
    public void poll() {
        long now = System.nanoTime();
        settled.values().removeIf(at -> now - at > SETTLED.toNanos());
        // A full batch means more may be waiting; bounded, since a lagging index may answer taken events again.
        for (int batch = 0; batch < MAX_BATCHES_PER_POLL && relay.fanOut(settings.batchSize()) == settings.batchSize();
             batch++) {
            // the condition does the work
        }
        for (String endpointId : relay.endpointIds()) {
            handOut(endpointId);
        }
    }

    private void pollThenWait() {
        Duration pause = settings.pollInterval();
        try {
            poll();
            if (failedPolls > 0) {
                LOG.info("the webhook relay reaches the store again, after {} failed poll(s)", failedPolls);
                failedPolls = 0;
            }
        } catch (RuntimeException e) {
            failedPolls++;
            pause = pauseAfter(failedPolls);
            LOG.warn("the webhook relay could not poll the store ({}: {}); it tries again in {}",
                    e.getClass().getSimpleName(), e.getMessage(), pause);
        }
        if (!closed) {
            try {
                poller.schedule(this::pollThenWait, pause.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                // closed meanwhile
            }
        }
    }

    /** The poll interval, doubled for every failed poll after the first, up to {@link #MAX_PAUSE} (or the interval). */
    Duration pauseAfter(int failures) {
        Duration pause = settings.pollInterval();
        if (pause.compareTo(MAX_PAUSE) >= 0) {
            return pause;
        }
        for (int i = 1; i < failures && pause.compareTo(MAX_PAUSE) < 0; i++) {
            pause = pause.multipliedBy(2);
        }
        return pause.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause;
    }

    /**
     * Hands an endpoint's due deliveries to workers while it has a free slot; an endpoint with none is not read at
     * all. Reads at most the batch size, and no more than {@link #DUE_PER_SLOT} per slot: enough to pass those in
     * flight here or leased by other instances. Safe from any thread: the slots and the in-flight set decide.
     */
    private HandOut handOut(String endpointId) {
        Semaphore slot = slots.computeIfAbsent(endpointId, id -> new Semaphore(settings.perEndpointConcurrency()));
        if (closed || slot.availablePermits() == 0) {
            return HandOut.FULL;
        }
        int limit = Math.min(settings.batchSize(), DUE_PER_SLOT * settings.perEndpointConcurrency());
        boolean passedSettled = false;
        for (Delivery delivery : relay.due(endpointId, limit)) {
            String key = delivery.endpointId() + " " + delivery.eventId();
            if (settled.containsKey(key)) {
                passedSettled = true;
                continue;
            }
            if (!inFlight.add(key)) {
                continue;
            }
            if (!slot.tryAcquire()) {
                inFlight.remove(key);
                return HandOut.FULL;
            }
            try {
                workers.execute(() -> begin(delivery, key, slot));
            } catch (RejectedExecutionException stopping) {
                slot.release();
                inFlight.remove(key);
                return HandOut.FULL;
            }
        }
        return passedSettled && slot.availablePermits() > 0 ? HandOut.STALE : HandOut.DONE;
    }

    /** What a hand-out found: every slot taken, what was due handed out, or a listing still showing settled ones. */
    private enum HandOut { FULL, DONE, STALE }

    private void begin(Delivery delivery, String key, Semaphore slot) {
        CompletableFuture<DeliveryOutcome> attempt;
        try {
            attempt = relay.attempt(delivery, workers);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> done = attempt.handle((outcome, failure) -> {
            settle(delivery, key, slot, outcome, failure);
            return null;
        });
        running.add(done);
        done.whenComplete((ignored, failure) -> running.remove(done));
    }

    private void settle(Delivery delivery, String key, Semaphore slot, DeliveryOutcome outcome, Throwable failure) {
        settled.put(key, System.nanoTime());
        inFlight.remove(key);
        slot.release();
        if (failure != null) {
            Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
            // The lease runs out and the delivery is due again: nothing is lost.
            LOG.warn("a webhook delivery attempt failed ({}); it is tried again after its lease",
                    cause.getClass().getSimpleName());
            return;
        }
        boolean worked = outcome == DeliveryOutcome.DELIVERED || outcome == DeliveryOutcome.RETRYING
                || outcome == DeliveryOutcome.FAILED;
        if (worked && !closed) {
            // The slot is free: the endpoint's next delivery goes out now, from this worker, not behind the poller's
            // fan-out and not at the next poll.
            handOutSafely(delivery.endpointId(), 0);
        }
    }

    /**
     * A hand-out after an outcome. When the listing still shows deliveries just settled (an index lagging behind
     * its table), the next ones may be hidden behind them: it looks again shortly, until the next poll would.
     */
    private void handOutSafely(String endpointId, int lookedAgain) {
        try {
            long looksBeforeThePoll = settings.pollInterval().toMillis() / LOOK_AGAIN.toMillis();
            if (handOut(endpointId) == HandOut.STALE && lookedAgain < looksBeforeThePoll && !closed) {
                poller.schedule(() -> workers.execute(() -> handOutSafely(endpointId, lookedAgain + 1)),
                        LOOK_AGAIN.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (RejectedExecutionException stopping) {
            // closed meanwhile
        } catch (RuntimeException e) {
            LOG.warn("the webhook relay could not read endpoint {}'s due deliveries ({}: {}); the next poll tries "
                    + "again", endpointId, e.getClass().getSimpleName(), e.getMessage());
        }
    }

    /**
     * Stops polling and lets the attempts in flight finish (each is bounded by the request timeout), so their
     * outcomes are written; whatever is still running after that is stopped, and its lease runs out.
     */
    @Override
    public void close() {
        closed = true;
        poller.shutdownNow();
        long wait = RetrySchedule.TIMEOUT.plusSeconds(5).toMillis();
        try {
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(wait, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // settled or not, the leases decide from here
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(wait, TimeUnit.MILLISECONDS)) {
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

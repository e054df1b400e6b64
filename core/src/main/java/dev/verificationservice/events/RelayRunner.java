package dev.verificationservice.events;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link WebhookRelay} on threads of its own, apart from the API's.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>A poller, every poll interval and whenever the store reports new events ({@link WebhookRepository#onNewEvents}:
 *   a poll at once, unless one is already on its way), fans undelivered events out into deliveries, a batch in one
 *   store step, then asks each endpoint's lane for work.</li>
 *   <li>Each endpoint has a lane: at most {@code perEndpointConcurrency} requests in flight, and up to
 *   {@link #AHEAD_PER_SLOT} claimed deliveries per slot waiting for one, so that a slot never waits for a store
 *   write. A lane with no room is not read at all: a dead endpoint's backlog, however long and old, is never read
 *   ahead of another endpoint's due work. Due deliveries are read per endpoint (each has its own outbox
 *   partition).</li>
 *   <li>A lane writes in one store step at a time, on a worker: the outcomes answered since its last step, and the
 *   claims of its next due deliveries, as many as it has room for (on SQLite one transaction, one sync). While a
 *   step runs, answers gather for the next: the faster the endpoint answers, the more one sync covers.</li>
 *   <li>A claimed delivery goes out as soon as a slot of its lane is free; no thread waits for the answer (the
 *   transport is asynchronous), so a hanging receiver holds its own lane's slots and nothing else: any number of
 *   hanging endpoints leave the workers to the others. When the answer (or its timeout) comes, the slot takes the
 *   next claimed delivery at once, and the outcome joins the lane's next step: an endpoint is sent to at the pace it
 *   answers.</li>
 *   <li>A claimed delivery whose lease has less than {@link #LEASE_TO_SEND} left is not sent (another instance may
 *   claim it once the lease has run out). A delivery answered here is not read as due again for {@link #SETTLED}
 *   (an index that lags may still list it); a listing that still shows settled ones may hide the next ones behind
 *   them, so it is read again {@link #LOOK_AGAIN} later, until the next poll would.</li>
 *   <li>A poll the store refuses is tried again after a pause that doubles up to {@link #MAX_PAUSE}, each
 *   failure logged with its reason, and the recovery logged once; while it lasts, new events do not poll early.</li>
 *   <li>Close lets the requests in flight end and their outcomes be written, and gives back the leases of claimed
 *   deliveries not sent.</li>
 * </ol>
 * Spring-free; the starter starts and stops it.
 */
public final class RelayRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RelayRunner.class);

    private static final int MAX_BATCHES_PER_POLL = 10;
    /** Due deliveries read per endpoint slot beyond its own: a few instances' leases ahead of the free ones. */
    private static final int DUE_PER_SLOT = 4;
    /** Claimed deliveries per slot that wait for it: what the slots send while the lane's store step runs. */
    static final int AHEAD_PER_SLOT = 2;
    /** The least lease a claimed delivery must have left to be sent: the request's timeout and a margin. */
    static final Duration LEASE_TO_SEND = RetrySchedule.TIMEOUT.plusSeconds(15);
    /** The longest pause between polls while the store keeps failing. */
    static final Duration MAX_PAUSE = Duration.ofMinutes(1);
    /** How long a settled delivery is passed over by hand-outs: longer than an index lags behind its table. */
    static final Duration SETTLED = Duration.ofSeconds(2);
    /** How soon a lane whose listing still showed settled deliveries looks again (until the next poll would). */
    private static final Duration LOOK_AGAIN = Duration.ofMillis(100);

    private final WebhookRelay relay;
    private final WebhookSettings settings;
    private final ScheduledExecutorService poller;
    private final ThreadPoolExecutor workers;
    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
    /** Deliveries settled lately, with when (System.nanoTime): passed over while an index may still list them. */
    private final ConcurrentHashMap<String, Long> settled = new ConcurrentHashMap<>();
    /** Requests and store steps started and not yet ended, so that close lets them end. */
    private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();
    /** Whether a poll for new events is on its way: nudges while it is coalesce into it. */
    private final AtomicBoolean nudged = new AtomicBoolean();
    /** Removes this runner's listener from the store. */
    private volatile Runnable stopListening = () -> {
    };
    /** Polls that failed in a row; read and written by the poller only. */
    private int failedPolls;
    private volatile boolean closed;

    public RelayRunner(WebhookRelay relay, WebhookSettings settings) {
        this.relay = relay;
        this.settings = settings;
        this.poller = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "webhook-relay-poll"));
        // Unbounded queue, bounded work: every task is a lane's store step, a request of a free slot, or its answer.
        this.workers = new ThreadPoolExecutor(settings.workers(), settings.workers(), 1, TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(), runnable -> daemon(runnable, "webhook-relay-send"));
    }

    public RelayRunner start() {
        stopListening = relay.onNewEvents(this::nudge);
        poller.execute(this::pollThenWait);
        return this;
    }

    /**
     * New events were written: a poll runs at once on the poller, unless one is on its way already. Returns at once
     * (the store calls it on its own thread).
     */
    void nudge() {
        if (closed || !nudged.compareAndSet(false, true)) {
            return;
        }
        try {
            poller.execute(this::pollForNewEvents);
        } catch (RejectedExecutionException stopping) {
            // closed meanwhile
        }
    }

    private void pollForNewEvents() {
        // Cleared before the poll reads, so an event written while it runs asks for the next one.
        nudged.set(false);
        if (closed || failedPolls > 0) {
            return;
        }
        try {
            poll();
        } catch (RuntimeException e) {
            // The scheduled poll meets the same failure, logs it and pauses.
            LOG.debug("a poll for new webhook events failed ({})", e.toString());
        }
    }

    /**
     * One poll: fan out what is undelivered, a batch at a time, and after each batch ask each endpoint's lane to
     * claim what it has room for, so that sending begins while the next batch fans out.
     */
    public void poll() {
        long now = System.nanoTime();
        settled.values().removeIf(at -> now - at > SETTLED.toNanos());
        // A full batch means more may be waiting; bounded, since a lagging index may answer taken events again.
        // One read of the endpoints a poll: the partition every instance's polls share.
        List<WebhookEndpoint> endpoints = relay.endpoints();
        for (int batch = 0; batch < MAX_BATCHES_PER_POLL; batch++) {
            int taken = relay.fanOut(settings.batchSize(), endpoints);
            if (batch == 0 || taken > 0) {
                for (WebhookEndpoint endpoint : endpoints) {
                    laneOf(endpoint.endpointId()).wantWork();
                }
            }
            if (taken < settings.batchSize()) {
                return;
            }
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

    private Lane laneOf(String endpointId) {
        return lanes.computeIfAbsent(endpointId, Lane::new);
    }

    private static String keyOf(Delivery delivery) {
        return delivery.endpointId() + " " + delivery.eventId();
    }

    /** Runs {@code task} on a worker, noted as running until it ends; false when the runner is stopping. */
    private boolean onWorker(Runnable task) {
        try {
            CompletableFuture<Void> done = CompletableFuture.runAsync(task, workers);
            running.add(done);
            done.whenComplete((ignored, failure) -> running.remove(done));
            return true;
        } catch (RejectedExecutionException stopping) {
            return false;
        }
    }

    /** One endpoint's work in this instance; its fields are guarded by the lane itself. */
    private final class Lane {
        private final String endpointId;
        /** Deliveries claimed here and not yet written back (reserved, waiting, sending, answered). */
        private final Set<String> held = new HashSet<>();
        /** Claimed deliveries waiting for a free slot, oldest first. */
        private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
        /** Answers whose outcomes the next store step writes. */
        private final List<WebhookRelay.Attempted> answered = new ArrayList<>();
        private int sending;
        /** Whether a store step is queued or running: one at a time. */
        private boolean stepping;
        /** Whether a poll asked for claims since the last step began. */
        private boolean wanted;

        Lane(String endpointId) {
            this.endpointId = endpointId;
        }

        private int slots() {
            return settings.perEndpointConcurrency();
        }

        /** How many more deliveries this lane may claim now. */
        private int room() {
            return closed ? 0 : slots() * (1 + AHEAD_PER_SLOT) - sending - waiting.size();
        }

        /** A poll found the endpoint: a step claims what the lane has room for (none when it has no room). */
        void wantWork() {
            synchronized (this) {
                if (room() <= 0) {
                    return;
                }
                wanted = true;
            }
            step();
        }

        /** Starts a store step unless one is queued or running (that one sees what has come meanwhile). */
        private void step() {
            synchronized (this) {
                if (stepping) {
                    return;
                }
                stepping = true;
            }
            if (!onWorker(this::runSteps)) {
                synchronized (this) {
                    stepping = false;
                }
            }
        }

        /** Store steps, one after another, while answers or a poll's asking keep coming. */
        private void runSteps() {
            while (true) {
                List<WebhookRelay.Attempted> outcomes;
                int room;
                synchronized (this) {
                    if (answered.isEmpty() && !wanted) {
                        stepping = false;
                        return;
                    }
                    outcomes = new ArrayList<>(answered);
                    answered.clear();
                    wanted = false;
                    room = room();
                }
                try {
                    writeAndClaim(outcomes, room);
                } catch (RuntimeException e) {
                    // Never leave the lane without steps; what was not written is due again after its lease.
                    LOG.warn("a store step of webhook endpoint {} failed ({})", endpointId, e.toString());
                }
            }
        }

        private void writeAndClaim(List<WebhookRelay.Attempted> outcomes, int room) {
            Reservation next = Reservation.NONE;
            try {
                next = room > 0 ? reserve(room) : Reservation.NONE;
            } catch (RuntimeException e) {
                LOG.warn("the webhook relay could not read endpoint {}'s due deliveries ({}: {}); the next poll tries "
                        + "again", endpointId, e.getClass().getSimpleName(), e.getMessage());
            }
            List<Delivery> claimed;
            try {
                claimed = relay.record(outcomes, next.deliveries()).claimed();
            } catch (RuntimeException e) {
                LOG.warn("the webhook relay could not write endpoint {}'s deliveries ({}: {}); {} outcome(s) are sent "
                        + "again after their leases", endpointId, e.getClass().getSimpleName(), e.getMessage(),
                        outcomes.size());
                claimed = List.of();
            }
            Set<String> taken = new HashSet<>();
            claimed.forEach(delivery -> taken.add(keyOf(delivery)));
            synchronized (this) {
                outcomes.forEach(attempted -> held.remove(keyOf(attempted.outcome())));
                for (Delivery reserved : next.deliveries()) {
                    if (!taken.contains(keyOf(reserved))) {
                        held.remove(keyOf(reserved));
                    }
                }
                waiting.addAll(claimed);
            }
            pump();
            if (next.stale()) {
                lookAgainLater(0);
            }
        }

        /**
         * Picks up to {@code room} of the endpoint's due deliveries, passing over those held here (claimed, or
         * answered with their outcomes not yet written) and those settled lately. Reads those held here and a few per slot beyond the room: enough to pass leases of other instances.
         */
        private Reservation reserve(int room) {
            int ownAlready;
            synchronized (this) {
                ownAlready = held.size();
            }
            int limit = Math.min(settings.batchSize(), ownAlready + room + DUE_PER_SLOT * slots());
            boolean passedSettled = false;
            List<Delivery> chosen = new ArrayList<>();
            for (Delivery delivery : relay.due(endpointId, limit)) {
                if (chosen.size() == room) {
                    break;
                }
                String key = keyOf(delivery);
                synchronized (this) {
                    if (held.contains(key)) {
                        // Claimed here, or answered and written by this very step: not a lagging listing.
                        continue;
                    }
                    if (settled.containsKey(key)) {
                        passedSettled = true;
                        continue;
                    }
                    held.add(key);
                    chosen.add(delivery);
                }
            }
            return new Reservation(chosen, passedSettled && chosen.size() < room);
        }

        /** Sends claimed deliveries into the free slots, on the calling thread. */
        private void pump() {
            List<Delivery> toSend = new ArrayList<>();
            synchronized (this) {
                while (sending < slots() && !waiting.isEmpty() && !closed) {
                    Delivery next = waiting.poll();
                    if (!relay.leaseLasts(next, LEASE_TO_SEND)) {
                        // Too little lease left to be sure of it: it is due again once the lease has run out.
                        held.remove(keyOf(next));
                        continue;
                    }
                    sending++;
                    toSend.add(next);
                }
            }
            // On this thread: sending waits for no answer, and an attempt that ends at once (a disabled endpoint)
            // sends again from here at most as many times as the lane holds claimed deliveries.
            toSend.forEach(this::send);
        }

        private void send(Delivery delivery) {
            CompletableFuture<WebhookRelay.Attempted> sent;
            try {
                sent = relay.send(delivery);
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            CompletableFuture<Void> done = sent.handle((attempted, failure) -> {
                answered(delivery, attempted, failure);
                return null;
            });
            running.add(done);
            done.whenComplete((ignored, failure) -> running.remove(done));
        }

        /** The answer has come: the slot takes the next claimed delivery now, and the outcome joins the next step. */
        private void answered(Delivery delivery, WebhookRelay.Attempted attempted, Throwable failure) {
            String key = keyOf(delivery);
            settled.put(key, System.nanoTime());
            synchronized (this) {
                sending--;
                if (failure == null) {
                    answered.add(attempted);
                } else {
                    held.remove(key);
                }
            }
            if (failure != null) {
                Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                // The lease runs out and the delivery is due again: nothing is lost.
                LOG.warn("a webhook delivery attempt failed ({}); it is tried again after its lease",
                        cause.getClass().getSimpleName());
            }
            pump();
            step();
        }

        /**
         * A listing still showed deliveries just settled (an index lagging behind its table): the next ones may be
         * hidden behind them, so the lane looks again shortly, until the next poll would.
         */
        private void lookAgainLater(int lookedAgain) {
            long looksBeforeThePoll = settings.pollInterval().toMillis() / LOOK_AGAIN.toMillis();
            if (lookedAgain >= looksBeforeThePoll || closed) {
                return;
            }
            try {
                poller.schedule(this::wantWork, LOOK_AGAIN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                // closed meanwhile
            }
        }

        /** The claimed deliveries that were never sent, taken out of the lane (on close). */
        synchronized List<Delivery> unsent() {
            List<Delivery> unsent = new ArrayList<>(waiting);
            waiting.clear();
            unsent.forEach(delivery -> held.remove(keyOf(delivery)));
            return unsent;
        }
    }

    /** Due deliveries picked for a lane's room, and whether the listing still showed settled ones. */
    private record Reservation(List<Delivery> deliveries, boolean stale) {
        static final Reservation NONE = new Reservation(List.of(), false);
    }

    /**
     * Stops polling and lets the requests in flight end (each is bounded by the request timeout) and their outcomes
     * be written; gives back the leases of claimed deliveries not sent. Whatever is still running after that is
     * stopped, and its lease runs out.
     */
    @Override
    public void close() {
        closed = true;
        stopListening.run();
        poller.shutdownNow();
        long wait = RetrySchedule.TIMEOUT.plusSeconds(5).toMillis();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
        try {
            // An answer starts a store step: wait again until nothing new is running.
            while (!running.isEmpty() && System.nanoTime() < deadline) {
                CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).handle((done, failure) -> done)
                        .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // settled or not, the leases decide from here
        }
        for (Lane lane : lanes.values()) {
            try {
                relay.release(lane.unsent());
            } catch (RuntimeException e) {
                LOG.warn("the webhook relay could not give back the leases of endpoint {}'s unsent deliveries ({}); "
                        + "they are due again when the leases run out", lane.endpointId, e.toString());
            }
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

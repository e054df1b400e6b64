package dev.verificationservice.store.memory;

import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.time.Instants;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Rate-limit counters and cooldowns in memory.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Take a place: at the ceiling nothing is written and {@code count + 1} is answered; otherwise the count goes
 *   up by one, without a mark (a retry counts again).</li>
 *   <li>Give a place back: unless the attempt is its give-back slot's last already (a retry) or the count is zero,
 *   count down and make the attempt its slot's last.</li>
 *   <li>Claim a cooldown: held by another attempt and running at {@code now}: refused with its end; otherwise this
 *   attempt's claim is stored (unless it is stored already: a retry). Release: removed only while this attempt holds
 *   it.</li>
 *   <li>Reads hand back counters whose ttl (a whole second) is after {@code now}; windows sort by their start.</li>
 * </ol>
 */
final class MemoryCounters implements RateLimitRepository {

    /** One window's counter: its count and, by give-back slot, the last attempt that gave a place back there. */
    record Counter(CounterWindow window, long count, Map<Integer, String> givenBack) {

        Counter {
            givenBack = Map.copyOf(givenBack);
        }

        boolean isLiveAt(Instant now) {
            return now.getEpochSecond() < window.expiresAt().getEpochSecond();
        }

        RateLimitCounter read() {
            return new RateLimitCounter(window.userId(), window.action(), window.windowStart(), count,
                    window.expiresAt());
        }

        Counter taken() {
            return new Counter(window, count + 1, givenBack);
        }

        /** This counter with {@code attemptId}'s place given back, or empty when it was already, or none is left. */
        Optional<Counter> givenBack(String attemptId) {
            int slot = Place.giveBackSlot(attemptId);
            if (count <= 0 || attemptId.equals(givenBack.get(slot))) {
                return Optional.empty();
            }
            Map<Integer, String> next = new HashMap<>(givenBack);
            next.put(slot, attemptId);
            return Optional.of(new Counter(window, count - 1, next));
        }
    }

    /** The partition of one subject's action: its windows by start, and its cooldown. */
    private record Partition(String userId, String action) {
    }

    private final Object lock;
    private final Map<Partition, TreeMap<Instant, Counter>> counters = new HashMap<>();
    private final Map<Partition, Cooldown> cooldowns = new HashMap<>();

    MemoryCounters(Object lock) {
        this.lock = lock;
    }

    @Override
    public long takePlace(Place place, long ceiling) {
        CounterWindow window = place.window();
        synchronized (lock) {
            Counter counter = windows(window.userId(), window.action()).get(start(window));
            Counter current = counter != null ? counter : new Counter(window, 0, Map.of());
            if (current.count() >= ceiling) {
                return current.count() + 1;
            }
            put(current.taken());
            return current.count() + 1;
        }
    }

    @Override
    public void givePlaceBack(Place place) {
        CounterWindow window = place.window();
        synchronized (lock) {
            place.attemptId().flatMap(attemptId -> Optional.ofNullable(windows(window.userId(), window.action())
                    .get(start(window))).flatMap(counter -> counter.givenBack(attemptId))).ifPresent(this::put);
        }
    }

    @Override
    public int deleteCounters(String userId, String action) {
        synchronized (lock) {
            // The whole partition goes, its cooldown claim with it, as the table stores delete every item of it.
            cooldowns.remove(new Partition(userId, action));
            TreeMap<Instant, Counter> deleted = counters.remove(new Partition(userId, action));
            return deleted == null ? 0 : (int) deleted.values().stream().filter(counter -> counter.count() > 0).count();
        }
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        synchronized (lock) {
            return Optional.ofNullable(windows(userId, action).get(Instants.toMillis(windowStart)))
                    .filter(counter -> counter.isLiveAt(now)).map(Counter::read);
        }
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        synchronized (lock) {
            return windows(userId, action).subMap(Instants.toMillis(fromWindowStart), true,
                            Instants.toMillis(toWindowStart), true).values().stream()
                    .filter(counter -> counter.isLiveAt(now)).map(Counter::read).toList();
        }
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        Partition partition = new Partition(cooldown.userId(), cooldown.action());
        synchronized (lock) {
            Cooldown claim = cooldowns.get(partition);
            boolean mine = claim != null && claim.attemptId().equals(cooldown.attemptId());
            if (claim != null && !mine && claim.endsAt().isAfter(cooldown.now())) {
                return Optional.of(claim.endsAt());
            }
            if (!mine) {
                cooldowns.put(partition, cooldown);
            }
            return Optional.empty();
        }
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        Partition partition = new Partition(cooldown.userId(), cooldown.action());
        synchronized (lock) {
            Cooldown claim = cooldowns.get(partition);
            if (claim != null && claim.attemptId().equals(cooldown.attemptId())) {
                cooldowns.remove(partition);
            }
        }
    }

    private TreeMap<Instant, Counter> windows(String userId, String action) {
        return counters.getOrDefault(new Partition(userId, action), new TreeMap<>());
    }

    private static Instant start(CounterWindow window) {
        return Instants.toMillis(window.windowStart());
    }

    /** Stores the counter as given, replacing its window's. */
    void put(Counter counter) {
        CounterWindow window = counter.window();
        synchronized (lock) {
            counters.computeIfAbsent(new Partition(window.userId(), window.action()), partition -> new TreeMap<>())
                    .put(start(window), counter);
        }
    }

    /** Every counter, for the raw view of the tests. */
    List<Counter> stored() {
        synchronized (lock) {
            List<Counter> all = new ArrayList<>();
            counters.values().forEach(windows -> all.addAll(windows.values()));
            return all;
        }
    }

    /** Every cooldown claim, for the raw view of the tests. */
    List<Cooldown> cooldowns() {
        synchronized (lock) {
            return List.copyOf(cooldowns.values());
        }
    }
}

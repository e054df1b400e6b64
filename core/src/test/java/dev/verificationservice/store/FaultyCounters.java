package dev.verificationservice.store;

import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A store's counters with what a test needs beyond their behaviour: calls that fail or lose their answer (by name:
 * {@code takePlace:<action>}, {@code findCounters}, {@code claimCooldown}), reads and place-takings held at a
 * {@link CallGate}, and a record of the places asked for, given back and the counters deleted.
 */
public final class FaultyCounters implements RateLimitRepository {

    private final RateLimitRepository store;
    private final Faults faults;
    private final CallGate gate;
    private final List<String> placeRequests = Collections.synchronizedList(new ArrayList<>());
    private final List<String> givenBack = Collections.synchronizedList(new ArrayList<>());
    private final List<String> counterDeletions = Collections.synchronizedList(new ArrayList<>());

    public FaultyCounters(RateLimitRepository store, Faults faults, CallGate gate) {
        this.store = store;
        this.faults = faults;
        this.gate = gate;
    }

    /** How many places of an action were asked for so far, granted or not. */
    public long placeRequests(String action) {
        synchronized (placeRequests) {
            return placeRequests.stream().filter(action::equals).count();
        }
    }

    /** The actions of the places given back so far, in order. */
    public List<String> givenBack() {
        synchronized (givenBack) {
            return List.copyOf(givenBack);
        }
    }

    /** The actions whose counters were deleted so far (a reset or a lift), in order. */
    public List<String> counterDeletions() {
        synchronized (counterDeletions) {
            return List.copyOf(counterDeletions);
        }
    }

    @Override
    public long takePlace(Place place, long ceiling) {
        if (place.attemptId().isPresent()) {
            gate.pass();
        }
        String action = place.window().action();
        return faults.call("takePlace:" + action, () -> {
            placeRequests.add(action);
            return store.takePlace(place, ceiling);
        });
    }

    @Override
    public void givePlaceBack(Place place) {
        givenBack.add(place.window().action());
        store.givePlaceBack(place);
    }

    @Override
    public int deleteCounters(String userId, String action) {
        counterDeletions.add(action);
        return store.deleteCounters(userId, action);
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        return store.findCounter(userId, action, windowStart, now);
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        gate.pass();
        return faults.call("findCounters",
                () -> store.findCounters(userId, action, fromWindowStart, toWindowStart, now));
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        return faults.call("claimCooldown", () -> store.claimCooldown(cooldown));
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        store.releaseCooldown(cooldown);
    }
}

package dev.verificationservice.spring.store;

import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The store's rate-limit counters and cooldowns, each call timed. */
record MeteredCounters(RateLimitRepository counters, StoreTimers.Port timer) implements RateLimitRepository {

    @Override
    public long takePlace(Place place, long ceiling) {
        return timer.time("takePlace", () -> counters.takePlace(place, ceiling));
    }

    @Override
    public void givePlaceBack(Place place) {
        timer.run("givePlaceBack", () -> counters.givePlaceBack(place));
    }

    @Override
    public int deleteCounters(String userId, String action) {
        return timer.time("deleteCounters", () -> counters.deleteCounters(userId, action));
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        return timer.time("findCounter", () -> counters.findCounter(userId, action, windowStart, now));
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        return timer.time("findCounters",
                () -> counters.findCounters(userId, action, fromWindowStart, toWindowStart, now));
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        return timer.time("claimCooldown", () -> counters.claimCooldown(cooldown));
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        timer.run("releaseCooldown", () -> counters.releaseCooldown(cooldown));
    }
}

package dev.verificationservice.ratelimit;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for rate-limit counters. Every write here must be correct when it runs twice: networks drop
 * answers and clients retry. A take run twice counts twice (the safe direction, see {@link #takePlace}); a
 * give-back is recognised by its attempt id.
 */
public interface RateLimitRepository {

    /**
     * Takes the next place in the window's counter, atomically, and returns it (1 for the window's first attempt).
     * Under any concurrency every call gets a distinct place, which is what makes a limit exact.
     *
     * <ul>
     *   <li>The counter holds no mark of the place, so it stays small however high its count. A write whose
     *   answer was lost and that is sent again (the SDK's retry, or the caller's) counts once more: a limit may
     *   over-count by the retries, the safe direction (a refusal a little early), and never under-counts.</li>
     *   <li>Places are handed out only up to {@code ceiling}: when the counter already holds {@code ceiling},
     *   nothing is written and {@code ceiling + 1} is returned. An attempt past the limit is refused whatever
     *   its exact place.</li>
     * </ul>
     */
    long takePlace(Place place, long ceiling);

    /**
     * Gives an attempt's place back (a verification that turned out valid, an SMS that was not sent): the count
     * goes down by one, and the attempt's id is written into one of a bounded number of give-back slots picked by
     * the id. A give-back sent again while its id is still its slot's last (a retry) does nothing; a counter at
     * zero or gone (reset) is left alone. Only a place this attempt was granted may be given back.
     */
    void givePlaceBack(Place place);

    /**
     * Deletes every window of one subject's action and its cooldown claim (the whole partition) and returns how
     * many counters held a count. For an operator lifting a lock-out or a breaker.
     */
    int deleteCounters(String userId, String action);

    /** The counter of one window, if it exists and its ttl is after {@code now}. */
    Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now);

    /**
     * The counters of the windows starting in {@code [fromWindowStart, toWindowStart]}, oldest first, whose ttl
     * is after {@code now}: one query on the counter's partition.
     */
    List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart, Instant toWindowStart,
                                        Instant now);

    /**
     * Claims the cooldown in one conditional write. Empty when this attempt holds it now (newly, or already: a
     * retry); otherwise the moment the running cooldown ends.
     */
    Optional<Instant> claimCooldown(Cooldown cooldown);

    /**
     * Gives back a cooldown this attempt claimed (its request was refused after the claim, or failed): the
     * cooldown item is deleted, only while {@code claimedBy} is this attempt. The claim it replaced had ended
     * (or it could not have been made), so nothing else is lost. Running it twice, or after another attempt
     * has claimed the cooldown since, does nothing.
     */
    void releaseCooldown(Cooldown cooldown);
}

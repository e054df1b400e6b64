package dev.verificationservice.ratelimit;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for rate-limit counters. Every write here must be correct when it runs twice: networks drop
 * answers and clients retry, so each place is named by its attempt id and recognised when it comes again.
 */
public interface RateLimitRepository {

    /**
     * Takes the next place in the window's counter for {@code place.attemptId()}, atomically, and returns it
     * (1 for the window's first attempt). Under any concurrency every attempt gets a distinct place, which is
     * what makes a limit exact.
     *
     * <ul>
     *   <li>If this attempt already holds a place in the window (its earlier write was applied and this is a
     *   retry), that place is returned and nothing is counted again.</li>
     *   <li>A place without an attempt id is counted without a mark and so cannot be recognised on a retry; it
     *   cannot be given back either. The domain takes none such.</li>
     *   <li>Places are handed out only up to {@code ceiling}: when the counter already holds {@code ceiling},
     *   nothing is written and {@code ceiling + 1} is returned. An attempt past the limit is refused whatever
     *   its exact place, and the counter item stays small however long an attack lasts.</li>
     * </ul>
     */
    long takePlace(Place place, long ceiling);

    /**
     * Gives an attempt's place back (a verification that turned out valid): the count goes down by one and the
     * attempt's mark is removed, both only if the mark is still there, so a place is never given back twice.
     */
    void givePlaceBack(Place place);

    /**
     * Keeps an attempt's place for good (an SMS that went out under the budget): the count stays, and the
     * attempt's mark is removed, only while it is there. The place can no longer be given back, and the counter
     * item holds marks only for the places whose outcome is still open, not one per place ever taken: this is
     * what keeps a counter with a large limit small. Running it twice, or after the place was given back, does
     * nothing.
     */
    void keepPlace(Place place);

    /**
     * Deletes every window of one subject's action (through the counter's partition) and returns how many
     * counters held a count. For an operator lifting a lock-out.
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

package dev.verificationservice.ratelimit;

import java.time.Duration;

/**
 * At most {@code limit} counted events per fixed window of length {@code window}, counted in {@code shards}
 * counter items per window (one unless a limit shared by everyone, the SMS budget, is spread over several).
 *
 * <p><b>Bounded counters.</b> A counter item holds its count and at most {@value Place#GIVE_BACK_SLOTS} give-back
 * marks, never a mark per place, so it stays under 1 KB at any count. It still hands out at most
 * {@value #MAX_PER_COUNTER} places a window (the previous release's items held a mark per place, some 310 KB
 * there); a limit above it must be split over enough shards.
 */
public record RateLimitPolicy(int limit, Duration window, int shards) {

    /** The most places one counter item hands out per window. */
    public static final int MAX_PER_COUNTER = 10_000;

    /**
     * The default limit on guesses at one secret (a code, an authenticator's step, a recovery code): 5 per 15 minutes.
     * It lives here, not in {@code VerificationSettings}, so that every domain package can name it without depending
     * on the root package that wires them.
     */
    public static final RateLimitPolicy DEFAULT_GUESSES = new RateLimitPolicy(5, Duration.ofMinutes(15));

    public RateLimitPolicy {
        if (limit < 1) {
            throw new IllegalArgumentException("a rate limit must allow at least 1 event, not " + limit);
        }
        if (window.isNegative() || window.isZero() || window.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("a rate-limit window must be a positive whole number of seconds");
        }
        if (shards < 1 || shards > limit) {
            throw new IllegalArgumentException("a limit of " + limit + " is counted in 1 to " + limit
                    + " shards, not " + shards);
        }
        if (shardLimit(limit, shards, 0) > MAX_PER_COUNTER) {
            throw new IllegalArgumentException("a limit of " + limit + " in " + shards + (shards == 1 ? " counter" : " shards")
                    + " puts more than " + MAX_PER_COUNTER + " places in one counter item (at most " + MAX_PER_COUNTER
                    + " per window and counter, so that an item stays under DynamoDB's 400 KB)");
        }
    }

    /** A limit counted in one item per window. */
    public RateLimitPolicy(int limit, Duration window) {
        this(limit, window, 1);
    }

    /** The fewest shards that keep every counter item of a limit within {@link #MAX_PER_COUNTER}. */
    public static int fewestShards(int limit) {
        return (limit + MAX_PER_COUNTER - 1) / MAX_PER_COUNTER;
    }

    /** How many places shard {@code index} hands out: the limit split as evenly as it goes, the first ones larger. */
    public int shardLimit(int index) {
        return shardLimit(limit, shards, index);
    }

    /** The places of the shards before {@code index}: added to a place in that shard, never more than the limit. */
    public int placesBefore(int index) {
        int before = 0;
        for (int shard = 0; shard < index; shard++) {
            before += shardLimit(shard);
        }
        return before;
    }

    private static int shardLimit(int limit, int shards, int index) {
        return limit / shards + (index < limit % shards ? 1 : 0);
    }
}

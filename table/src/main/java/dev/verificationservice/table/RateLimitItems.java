package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rate limits: the counter of a window ({@code RATELIMIT#<userId>#<action>} / {@code WINDOW#<windowStart>}, with at most
 * {@link Place#GIVE_BACK_SLOTS} {@code back_<slot>} marks of places given back, never one per place counted) and the cooldown of an action
 * ({@code RATELIMIT#<userId>#<action>} / {@code COOLDOWN}).
 */
public final class RateLimitItems {

    private RateLimitItems() {
    }

    /**
     * The attributes of a counter besides its key and {@code count}: what the atomic ADD sets beside the count,
     * so that the item carries the seed's attributes however it came into being.
     */
    public static Map<String, Object> counterAttributes(String userId, String action, Instant windowStart,
                                                        Instant expiresAt) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(USER_ID, userId);
        item.put(ACTION, action);
        item.put(WINDOW_START, Timestamps.format(windowStart));
        item.put(TTL, epochSeconds(expiresAt));
        return item;
    }

    /** A whole counter item holding {@code count}: what a store writes when the window has no counter yet. */
    public static Map<String, Object> counterItem(String userId, String action, Instant windowStart, Instant expiresAt,
                                                  long count) {
        Map<String, Object> item = keyed(TableKeys.rateLimitWindow(userId, action, windowStart));
        item.putAll(counterAttributes(userId, action, windowStart, expiresAt));
        item.put(COUNT, count);
        return item;
    }

    public static RateLimitCounter counter(Map<String, Object> item) {
        return new RateLimitCounter(
                string(item, USER_ID),
                string(item, ACTION),
                Timestamps.parse(string(item, WINDOW_START)),
                number(item, COUNT),
                Instant.ofEpochSecond(number(item, TTL)));
    }

    /** The attribute whose value names the last attempt that gave a place back through this attempt's slot. */
    public static String giveBackAttribute(String attemptId) {
        return GIVE_BACK_PREFIX + Place.giveBackSlot(attemptId);
    }

    /**
     * Whether this counter item shows {@code attemptId}'s give-back as the last one of its slot: a retried
     * give-back, to be answered without counting down again.
     */
    public static boolean givenBack(Map<String, Object> item, String attemptId) {
        return attemptId.equals(item.get(giveBackAttribute(attemptId)));
    }

    /** The item of a cooldown claimed by {@code cooldown}; its ttl is when the cooldown ends plus the grace. */
    public static Map<String, Object> cooldownItem(Cooldown cooldown, Instant expiresAt) {
        Map<String, Object> item = keyed(TableKeys.cooldown(cooldown.userId(), cooldown.action()));
        item.put(USER_ID, cooldown.userId());
        item.put(ACTION, cooldown.action());
        item.put(BUSY_UNTIL, cooldown.endsAt().toEpochMilli());
        item.put(CLAIMED_BY, cooldown.attemptId());
        item.put(TTL, epochSeconds(expiresAt));
        return item;
    }

    /** When the cooldown held by this item ends. */
    public static Instant busyUntil(Map<String, Object> item) {
        return Instant.ofEpochMilli(number(item, BUSY_UNTIL));
    }
}

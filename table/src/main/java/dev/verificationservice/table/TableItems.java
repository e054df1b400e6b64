package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.PK;
import static dev.verificationservice.table.ItemAttributes.SK;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What every item class of the single table shares: its value types and their typed access. An item is a plain
 * attribute map whose values are {@link String} (S), {@link Long} (N), {@link Boolean} (BOOL) or a
 * {@code Map<String, String>} (M of S); a store translates those four types to its own encoding and nothing else.
 * Each concept's items are mapped, for every store on the table (SQLite, DynamoDB), by one class:
 * {@link CodeItems}, {@link DeviceItems}, {@link AuditItems} (with the event), {@link RateLimitItems},
 * {@link TotpItems}, {@link RecoveryCodeItems}, {@link IdempotencyItems} and {@link EventItems}.
 */
public final class TableItems {

    private TableItems() {
    }

    /** Epoch seconds, as the {@code ttl} attribute holds them. */
    static long epochSeconds(Instant instant) {
        return instant.getEpochSecond();
    }

    /** A new item holding only its key, in the attribute order every item starts with. */
    static Map<String, Object> keyed(TableKeys.PrimaryKey key) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        return item;
    }

    // Typed access

    public static String string(Map<String, Object> item, String name) {
        Object value = item.get(name);
        if (!(value instanceof String text)) {
            throw new IllegalStateException("item attribute " + name + " is missing or not a string");
        }
        return text;
    }

    public static Optional<String> optionalString(Map<String, Object> item, String name) {
        return item.get(name) instanceof String text ? Optional.of(text) : Optional.empty();
    }

    public static long number(Map<String, Object> item, String name) {
        Object value = item.get(name);
        if (!(value instanceof Number number)) {
            throw new IllegalStateException("item attribute " + name + " is missing or not a number");
        }
        return number.longValue();
    }

    public static boolean bool(Map<String, Object> item, String name) {
        Object value = item.get(name);
        if (!(value instanceof Boolean flag)) {
            throw new IllegalStateException("item attribute " + name + " is missing or not a boolean");
        }
        return flag;
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> stringMap(Map<String, Object> item, String name) {
        Object value = item.get(name);
        return value instanceof Map<?, ?> map ? Map.copyOf((Map<String, String>) map) : Map.of();
    }
}

package dev.verificationservice.store.sqlite;

import static dev.verificationservice.table.ItemAttributes.COUNT;

import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.RateLimitItems;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Rate-limit counters and cooldowns in the SQLite table.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>take a place: one statement, {@link #TAKE_PLACE}: the window's counter is inserted with {@code count = 1}, or,
 *   when it exists and holds less than the ceiling, counted up in place; without a mark (a retry counts again).
 *   No row back means the counter holds the ceiling already, and nothing was written. Give a place back: unless the attempt
 *   is its give-back slot's last already ({@code back_<slot>}: a retry) or the count is zero, count down and
 *   make the attempt its slot's last;</li>
 *   <li>claim a cooldown: in one transaction, read the cooldown item; held by another attempt and still
 *   running: refused with its end; otherwise written with this attempt's id and end. Release it: delete the
 *   item, only while this attempt's id is its {@code claimedBy};</li>
 *   <li>delete a user's counters of an action: one statement on the partition, counting those that had
 *   counted anything;</li>
 *   <li>read counters: by key or by a window range of the partition, filtering {@code ttl > :now} themselves.</li>
 * </ul>
 */
final class SqliteCounters implements RateLimitRepository {

    /** attribute_not_exists(PK) OR count < :ceiling, then SET count = count + 1 (or the new item), in one upsert. */
    private static final String TAKE_PLACE = "INSERT INTO items (pk, sk, gsi1pk, gsi1sk, ttl, item) VALUES (?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (pk, sk) DO UPDATE SET item = json_set(item, '$." + COUNT + "', json_extract(item, '$." + COUNT
            + "') + 1) WHERE json_extract(item, '$." + COUNT + "') < ? RETURNING json_extract(item, '$." + COUNT + "')";
    private static final String DELETE_PARTITION = "DELETE FROM items WHERE pk = ? RETURNING item";
    private static final String SELECT_ACTIVE_SK_RANGE =
            "SELECT item FROM items WHERE pk = ? AND sk BETWEEN ? AND ? AND ttl > ? ORDER BY sk";

    private final SqliteTable table;

    SqliteCounters(SqliteTable table) {
        this.table = table;
    }

    @Override
    public long takePlace(Place place, long ceiling) {
        if (ceiling < 1) {
            return ceiling + 1;
        }
        CounterWindow window = place.window();
        Map<String, Object> first = RateLimitItems.counterItem(window.userId(), window.action(), window.windowStart(),
                window.expiresAt(), 1);
        return table.inTransaction("count a rate-limited event", connection -> {
            try (PreparedStatement take = connection.prepareStatement(TAKE_PLACE)) {
                table.bindItem(take, first);
                take.setLong(7, ceiling);
                try (ResultSet taken = take.executeQuery()) {
                    return taken.next() ? taken.getLong(1) : ceiling + 1;
                }
            }
        });
    }

    @Override
    public void givePlaceBack(Place place) {
        table.inTransaction("give back a rate-limit place", connection -> {
            givePlaceBack(connection, place);
            return null;
        });
    }

    /** Count down by one and make the attempt its slot's last, unless it is already (a retry) or none is left. */
    void givePlaceBack(Connection connection, Place place) throws SQLException {
        CounterWindow window = place.window();
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(window.userId(), window.action(), window.windowStart());
        if (place.attemptId().isEmpty()) {
            return;
        }
        String attemptId = place.attemptId().get();
        Optional<Map<String, Object>> current = table.selectItem(connection, key);
        if (current.isEmpty() || TableItems.number(current.get(), COUNT) <= 0
                || RateLimitItems.givenBack(current.get(), attemptId)) {
            return;
        }
        Map<String, Object> item = new LinkedHashMap<>(current.get());
        item.put(COUNT, TableItems.number(item, COUNT) - 1);
        item.put(RateLimitItems.giveBackAttribute(attemptId), attemptId);
        table.putItem(connection, item);
    }

    @Override
    public int deleteCounters(String userId, String action) {
        String partition = TableKeys.rateLimitPartition(userId, action);
        return table.inTransaction("delete rate-limit counters", connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_PARTITION)) {
                delete.setString(1, partition);
                // The partition's cooldown claim (an SMS breaker's record) holds no count.
                return (int) table.allItems(delete).stream()
                        .filter(item -> item.containsKey(COUNT) && TableItems.number(item, COUNT) > 0).count();
            }
        });
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        try (Connection connection = table.readConnection();
             PreparedStatement select = connection.prepareStatement(SELECT_ACTIVE_SK_RANGE)) {
            select.setString(1, TableKeys.rateLimitPartition(userId, action));
            select.setString(2, TableKeys.rateLimitWindow(userId, action, fromWindowStart).sk());
            select.setString(3, TableKeys.rateLimitWindow(userId, action, toWindowStart).sk());
            select.setLong(4, now.getEpochSecond());
            return table.allItems(select).stream().map(RateLimitItems::counter).toList();
        } catch (SQLException e) {
            throw SqliteTable.failure("read rate-limit counters", e);
        }
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        return table.inTransaction("claim a cooldown", connection -> {
            Optional<Map<String, Object>> current = table.selectItem(connection, key);
            if (current.isPresent()
                    && !cooldown.attemptId().equals(current.get().get(ItemAttributes.CLAIMED_BY))
                    && RateLimitItems.busyUntil(current.get()).isAfter(cooldown.now())) {
                return Optional.of(RateLimitItems.busyUntil(current.get()));
            }
            if (current.isEmpty() || !cooldown.attemptId().equals(current.get().get(ItemAttributes.CLAIMED_BY))) {
                table.putItem(connection,
                        RateLimitItems.cooldownItem(cooldown, cooldown.endsAt().plus(RateLimiter.COUNTER_GRACE)));
            }
            return Optional.<Instant>empty();
        });
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        table.inTransaction("release a cooldown", connection -> {
            Optional<Map<String, Object>> current = table.selectItem(connection, key);
            if (current.isPresent() && cooldown.attemptId().equals(current.get().get(ItemAttributes.CLAIMED_BY))) {
                table.deleteItem(connection, key);
            }
            return null;
        });
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        try (Connection connection = table.readConnection();
             PreparedStatement select = connection.prepareStatement(SqliteTable.SELECT_ACTIVE_ITEM)) {
            select.setString(1, key.pk());
            select.setString(2, key.sk());
            select.setLong(3, now.getEpochSecond());
            return table.allItems(select).stream().findFirst().map(RateLimitItems::counter);
        } catch (SQLException e) {
            throw SqliteTable.failure("read a rate-limit counter", e);
        }
    }
}

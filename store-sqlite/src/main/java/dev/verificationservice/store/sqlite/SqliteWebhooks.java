package dev.verificationservice.store.sqlite;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.EventItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Webhook endpoints, deliveries and the outbox in the SQLite table.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>the outbox: an audit item of a subscribed type ({@link dev.verificationservice.events.EventSubscriptions})
 *   carries OUTBOXPK/OUTBOXSK from the write that inserted it (the same transaction as the change it reports); the partial index {@link SqliteSchema#CREATE_OUTBOX_INDEX} holds only
 *   items that have them, like the sparse index on DynamoDB;</li>
 *   <li>fan-out: one transaction for a batch of events inserts each delivery that does not exist yet and rewrites
 *   each audit item without its outbox attributes;</li>
 *   <li>claim and outcome: each reads the delivery and writes it only if the condition holds (due and unleased or
 *   lease expired; still leased to this owner), as DynamoDB's conditional UpdateItem does; the claims of a batch,
 *   or outcomes with the claims of the endpoint's next deliveries, in one transaction (one sync);</li>
 *   <li>new events: the table calls the listeners once a transaction that wrote an audit item into the outbox is
 *   durable ({@link SqliteTable#onNewEvents});</li>
 *   <li>an endpoint's deliveries are in {@value TableKeys#DELIVERY_SHARDS} shard partitions, as on DynamoDB: its due
 *   ones and its listing are one statement, each shard's first rows by the index merged in SQL
 *   ({@link #acrossShards}), so only the rows answered are read out of their JSON; a stored delivery is read and
 *   rewritten at the key it is at ({@link EventItems#deliveryKeys}: also the previous release's);</li>
 *   <li>endpoints: one partition; a replacement is written only if the stored version is the expected one; each
 *   endpoint write, once durable, tells the store's subscriptions view.</li>
 * </ul>
 */
final class SqliteWebhooks implements WebhookRepository {

    private static final String OUTBOX_PK = "json_extract(item, '$." + ItemAttributes.OUTBOX_PK + "')";
    private static final String OUTBOX_SK = "json_extract(item, '$." + ItemAttributes.OUTBOX_SK + "')";
    private static final String SELECT_OUTBOX = "SELECT item FROM items WHERE " + OUTBOX_PK + " >= ? AND "
            + OUTBOX_PK + " < ? AND " + OUTBOX_SK + " <= ? ORDER BY " + OUTBOX_SK + " LIMIT ?";
    /** An endpoint's due deliveries, oldest first: of each outbox shard (partition, due by, limit), then the limit. */
    private static final String SELECT_DUE = acrossShards("SELECT item, " + OUTBOX_SK + " AS position FROM items WHERE "
            + OUTBOX_PK + " = ? AND " + OUTBOX_SK + " <= ? ORDER BY " + OUTBOX_SK + " LIMIT ?", "position");
    /** Sorts after every fixed-width timestamp: the upper bound of "any time". */
    private static final String ANY_TIME = "~";
    private static final String OUTBOX_STATS = "SELECT count(*), min(json_extract(item, '$."
            + ItemAttributes.TIMESTAMP + "')) FROM items WHERE " + OUTBOX_PK + " >= ? AND " + OUTBOX_PK + " < ?";
    private static final String SELECT_PARTITION = "SELECT item FROM items WHERE pk = ? AND sk >= ? AND sk < ?"
            + " ORDER BY sk";
    /** An endpoint's deliveries newest first: of each shard (partition, from, to, limit), then the limit. */
    private static final String SELECT_DELIVERIES = acrossShards("SELECT item, sk AS position FROM items WHERE pk = ?"
            + " AND sk BETWEEN ? AND ? ORDER BY sk DESC LIMIT ?", "position DESC");

    private final SqliteTable table;

    /**
     * One statement over an endpoint's shards: {@code shardQuery} (its first rows, by the index) for each, then the
     * first {@code LIMIT ?} of them all in {@code order}, which is what one partition holding them all would answer.
     */
    private static String acrossShards(String shardQuery, String order) {
        return "SELECT item FROM (" + String.join(" UNION ALL ", Collections.nCopies(TableKeys.DELIVERY_SHARDS,
                "SELECT * FROM (" + shardQuery + ")")) + ") ORDER BY " + order + " LIMIT ?";
    }

    SqliteWebhooks(SqliteTable table) {
        this.table = table;
    }

    @Override
    public boolean insertEndpoint(WebhookEndpoint endpoint) {
        return table.subscriptions().changedIf(table.inTransaction("register a webhook endpoint",
                connection -> table.insertIfAbsent(connection, EventItems.endpointItem(endpoint)) == 1));
    }

    @Override
    public Optional<WebhookEndpoint> findEndpoint(String endpointId) {
        return read("read a webhook endpoint", connection ->
                table.selectItem(connection, TableKeys.webhookEndpoint(endpointId)).map(EventItems::endpoint));
    }

    @Override
    public long endpointWrites() {
        return table.subscriptions().endpointWrites();
    }

    @Override
    public List<WebhookEndpoint> listEndpoints() {
        String prefix = TableKeys.webhookEndpointsPrefix();
        return read("list the webhook endpoints", connection -> {
            try (PreparedStatement select = connection.prepareStatement(SELECT_PARTITION)) {
                select.setString(1, TableKeys.webhookEndpointsPartition());
                select.setString(2, prefix);
                select.setString(3, prefix + SqliteSchema.PREFIX_END);
                return table.allItems(select).stream().map(EventItems::endpoint).toList();
            }
        });
    }

    @Override
    public boolean replaceEndpoint(WebhookEndpoint updated, long expectedVersion) {
        return table.subscriptions().changedIf(table.inTransaction("change a webhook endpoint", connection -> {
            Optional<Map<String, Object>> stored =
                    table.selectItem(connection, TableKeys.webhookEndpoint(updated.endpointId()));
            if (stored.isEmpty() || TableItems.number(stored.get(), ItemAttributes.VERSION) != expectedVersion) {
                return false;
            }
            table.putItem(connection, EventItems.endpointItem(updated));
            return true;
        }));
    }

    @Override
    public boolean deleteEndpoint(String endpointId) {
        return table.subscriptions().changedIf(table.inTransaction("delete a webhook endpoint",
                connection -> table.deleteItem(connection, TableKeys.webhookEndpoint(endpointId)) == 1));
    }

    @Override
    public List<AuditEntry> undeliveredEvents(int limit) {
        return outbox(TableKeys.outboxEventsPrefix(), ANY_TIME, limit).stream().map(AuditItems::audit).toList();
    }

    @Override
    public void fanOut(List<FanOut> events) {
        table.inTransaction("fan events out to the webhook endpoints", connection -> {
            for (FanOut event : events) {
                for (Delivery delivery : event.deliveries()) {
                    table.insertIfAbsent(connection, EventItems.deliveryItem(delivery));
                }
                AuditEntry entry = event.entry();
                TableKeys.PrimaryKey key = TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId());
                Optional<Map<String, Object>> stored = table.selectItem(connection, key);
                if (stored.isPresent() && stored.get().containsKey(ItemAttributes.OUTBOX_PK)) {
                    Map<String, Object> delivered = new LinkedHashMap<>(stored.get());
                    delivered.remove(ItemAttributes.OUTBOX_PK);
                    delivered.remove(ItemAttributes.OUTBOX_SK);
                    table.putItem(connection, delivered);
                }
            }
            return null;
        });
    }

    @Override
    public List<Delivery> dueDeliveries(String endpointId, Instant now, int limit) {
        return read("read the webhook outbox", connection -> {
            try (PreparedStatement select = connection.prepareStatement(SELECT_DUE)) {
                int parameter = 0;
                for (String partition : TableKeys.outboxDeliveryPartitions(endpointId)) {
                    select.setString(++parameter, partition);
                    select.setString(++parameter, TableKeys.outboxDueBy(now));
                    select.setInt(++parameter, limit);
                }
                select.setInt(++parameter, limit);
                return table.allItems(select).stream().map(EventItems::delivery).toList();
            }
        });
    }

    /** Items of the outbox partitions of one kind, due by {@code dueBy} (inclusive), oldest first. */
    private List<Map<String, Object>> outbox(String kind, String dueBy, int limit) {
        return read("read the webhook outbox", connection -> {
            try (PreparedStatement select = connection.prepareStatement(SELECT_OUTBOX)) {
                select.setString(1, kind);
                select.setString(2, kind + SqliteSchema.PREFIX_END);
                select.setString(3, dueBy);
                select.setInt(4, limit);
                return table.allItems(select);
            }
        });
    }

    @Override
    public Optional<Delivery> findDelivery(String endpointId, Instant occurredAt, String eventId) {
        return read("read a webhook delivery", connection -> stored(connection,
                EventItems.deliveryKeys(endpointId, occurredAt, eventId)).map(EventItems::delivery));
    }

    /** The delivery's item at the first of its keys that holds one. */
    private Optional<Map<String, Object>> stored(Connection connection, List<TableKeys.PrimaryKey> keys)
            throws SQLException {
        for (TableKeys.PrimaryKey key : keys) {
            Optional<Map<String, Object>> item = table.selectItem(connection, key);
            if (item.isPresent()) {
                return item;
            }
        }
        return Optional.empty();
    }

    /** The delivery's item at the key the stored one is at: each is written where it is. */
    private static Map<String, Object> at(Map<String, Object> stored, Delivery delivery) {
        return EventItems.deliveryItem(delivery, new TableKeys.PrimaryKey(TableItems.string(stored, ItemAttributes.PK),
                TableItems.string(stored, ItemAttributes.SK)));
    }

    @Override
    public Optional<Delivery> claimDelivery(Delivery delivery, String owner, Instant now, Instant leaseUntil) {
        return table.inTransaction("claim a webhook delivery",
                connection -> claim(connection, delivery, owner, now, leaseUntil));
    }

    @Override
    public List<Delivery> claimDeliveries(List<Delivery> deliveries, String owner, Instant now, Instant leaseUntil) {
        return table.inTransaction("claim webhook deliveries",
                connection -> claimAll(connection, deliveries, owner, now, leaseUntil));
    }

    @Override
    public boolean recordAttempt(Delivery outcome, String owner) {
        return table.inTransaction("record a webhook delivery attempt",
                connection -> record(connection, outcome, owner));
    }

    @Override
    public Settled recordAndClaim(List<Delivery> outcomes, String owner, List<Delivery> next, Instant now,
                                  Instant leaseUntil) {
        return table.inTransaction("record webhook delivery attempts and claim the next", connection -> {
            List<Delivery> recorded = new ArrayList<>();
            for (Delivery outcome : outcomes) {
                if (record(connection, outcome, owner)) {
                    recorded.add(outcome);
                }
            }
            return new Settled(recorded, claimAll(connection, next, owner, now, leaseUntil));
        });
    }

    @Override
    public Runnable onNewEvents(Runnable listener) {
        return table.onNewEvents(listener);
    }

    private List<Delivery> claimAll(Connection connection, List<Delivery> deliveries, String owner, Instant now,
                                    Instant leaseUntil) throws SQLException {
        List<Delivery> claimed = new ArrayList<>();
        for (Delivery delivery : deliveries) {
            claim(connection, delivery, owner, now, leaseUntil).ifPresent(claimed::add);
        }
        return claimed;
    }

    /** The claim's condition and write, as DynamoDB's conditional UpdateItem makes them. */
    private Optional<Delivery> claim(Connection connection, Delivery delivery, String owner, Instant now,
                                     Instant leaseUntil) throws SQLException {
        Optional<Map<String, Object>> item = stored(connection, EventItems.deliveryKeys(delivery));
        Optional<Delivery> stored = item.map(EventItems::delivery)
                .filter(current -> current.status() == DeliveryStatus.PENDING)
                .filter(current -> current.nextAttemptAt().map(due -> !due.isAfter(now)).orElse(true))
                .filter(current -> current.leaseUntil().map(until -> until.isBefore(now)).orElse(true));
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        Delivery claimed = stored.get().leasedTo(owner, leaseUntil);
        table.putItem(connection, at(item.get(), claimed));
        return Optional.of(claimed);
    }

    private boolean record(Connection connection, Delivery outcome, String owner) throws SQLException {
        Optional<Map<String, Object>> item = stored(connection, EventItems.deliveryKeys(outcome));
        boolean held = item.map(EventItems::delivery).flatMap(Delivery::leaseOwner).filter(owner::equals).isPresent();
        if (held) {
            table.putItem(connection, at(item.get(), outcome));
        }
        return held;
    }

    @Override
    public void putDelivery(Delivery delivery) {
        table.inTransaction("put a webhook delivery back", connection -> {
            table.putItem(connection, stored(connection, EventItems.deliveryKeys(delivery))
                    .map(item -> at(item, delivery)).orElseGet(() -> EventItems.deliveryItem(delivery)));
            return null;
        });
    }

    @Override
    public List<Delivery> deliveries(String endpointId, Instant from, Instant to, int limit) {
        return read("list webhook deliveries", connection -> {
            try (PreparedStatement select = connection.prepareStatement(SELECT_DELIVERIES)) {
                int parameter = 0;
                for (String partition : TableKeys.deliveriesPartitions(endpointId)) {
                    select.setString(++parameter, partition);
                    select.setString(++parameter, TableKeys.deliveryRangeStart(from));
                    select.setString(++parameter, TableKeys.deliveryRangeEnd(to));
                    select.setInt(++parameter, limit);
                }
                select.setInt(++parameter, limit);
                return table.allItems(select).stream().map(EventItems::delivery).toList();
            }
        });
    }

    @Override
    public OutboxStats outboxStats(Instant now) {
        return read("count the webhook outbox", connection -> {
            try (PreparedStatement select = connection.prepareStatement(OUTBOX_STATS)) {
                select.setString(1, TableKeys.outboxPrefix());
                select.setString(2, TableKeys.outboxPrefix() + SqliteSchema.PREFIX_END);
                try (ResultSet result = select.executeQuery()) {
                    result.next();
                    String oldest = result.getString(2);
                    return new OutboxStats(result.getLong(1), Optional.ofNullable(oldest)
                            .map(Timestamps::parse));
                }
            }
        });
    }

    private <T> T read(String what, Read<T> read) {
        try (Connection connection = table.readConnection()) {
            return read.apply(connection);
        } catch (SQLException e) {
            throw SqliteTable.failure(what, e);
        }
    }

    @FunctionalInterface
    private interface Read<T> {
        T apply(Connection connection) throws SQLException;
    }
}

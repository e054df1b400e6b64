package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.READ;
import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.WRITE;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.n;
import static dev.verificationservice.store.dynamodb.DynamoDbItems.s;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.DeliveryStatus;
import dev.verificationservice.events.EventIds;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.EventItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.MergedQuery;
import dev.verificationservice.table.TableItems;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.table.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Webhook endpoints, deliveries and the outbox on DynamoDB.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>an audit item carries outbox attributes only when some endpoint subscribes to its type
 *   ({@link dev.verificationservice.events.EventSubscriptions}, told of each endpoint write made here);</li>
 *   <li>the outbox costs no item of its own: an audit item carries OUTBOXPK/OUTBOXSK from the request that writes it
 *   (PutItem, or a TransactWriteItems with the change it reports), so it enters the sparse index {@value
 *   TableKeys#OUTBOX_INDEX} in the same atomic step;</li>
 *   <li>undelivered events: Query the index, the event shards {@link OutboxLooks} picks for this look (those
 *   this instance wrote to lately, and a few in turn), oldest first; due deliveries: Query each of the endpoint's
 *   {@value TableKeys#DELIVERY_SHARDS} shard partitions ({@code OUTBOXSK <= :now}) in parallel, merged oldest first ({@link MergedQuery}). The index lags: what it
 *   answers is a hint, and every decision is a conditional write on the table;</li>
 *   <li>fan-out, event after event of the batch: PutItem on {@value DynamoDbTable#KEY_IS_NEW} of each delivery (an
 *   existing one is left as it is), then UpdateItem REMOVE of the entry's outbox attributes on
 *   {@code attribute_exists(PK)}. Deliveries go first: a crash between the two leaves the entry in the outbox and
 *   the next fan-out repeats harmlessly. An event whose writes fail (a throttled shard) stays for the next look and
 *   the batch goes on;</li>
 *   <li>claim: UpdateItem SET lease on {@value #CLAIMABLE}, answering ALL_NEW; outcome: PutItem of the delivery
 *   on {@value #LEASE_HELD} (a PENDING outcome carries its new outbox key, a final one none, leaving the index).
 *   A refused one that the item shows as this relay's own (the SDK resent it after a lost answer: the same lease,
 *   the same outcome) counts as done. Each is made at the delivery's shard key and, when no item is there, at the
 *   key the previous release wrote it under ({@link EventItems#deliveryKeys}), so such an item is sent in place;
 *   claims of a batch, and an outcome with the next claims, are these requests one after another (the SPI's
 *   defaults): DynamoDB has no sync to share, and a transaction would cost twice the write units;</li>
 *   <li>no listener for new events: the index lags, so a read right after the write would not find them; the
 *   poll does;</li>
 *   <li>listing an endpoint's deliveries: Query each shard partition, consistently and in parallel, newest first,
 *   merged;</li>
 *   <li>endpoints: the partition {@code WEBHOOKS}, read consistently; a change is a PutItem on {@value #SAME_VERSION}.</li>
 * </ul>
 */
final class DynamoDbWebhooks implements WebhookRepository {

    static final String CLAIMABLE = "#status = :pending AND #due <= :now"
            + " AND (attribute_not_exists(#lease) OR #lease < :now)";
    static final String LEASE_HELD = "#owner = :owner";
    static final String SAME_VERSION = "#version = :version";
    static final String IN_OUTBOX_BY = "OUTBOXPK = :pk AND OUTBOXSK <= :due";
    static final String IN_OUTBOX = "OUTBOXPK = :pk";
    static final String EXISTS = "attribute_exists(PK)";
    /** Sorts after every fixed-width timestamp: the bound of "due at any time". */
    private static final String ANY_TIME = "~";
    /** The most items the outbox stats read of one partition. */
    static final int STATS_PER_PARTITION = 25;

    /** The shard each event of the last look was read from (the relay's poller looks and fans out in turn). */
    private volatile Map<String, Integer> shardsOfLastLook = Map.of();

    private final DynamoDbTable table;

    DynamoDbWebhooks(DynamoDbTable table) {
        this.table = table;
    }

    @Override
    public boolean insertEndpoint(WebhookEndpoint endpoint) {
        Optional<Map<String, Object>> holder = table.putIfNew(EventItems.endpointItem(endpoint),
                TableKeys.webhookEndpoint(endpoint.endpointId()), AccessPattern.WEBHOOK_ENDPOINTS);
        // Written now, or held by this very endpoint: a retried put whose first answer was lost.
        return table.outbox.subscriptions().changedIf(holder.isEmpty()
                || (!holder.get().isEmpty() && EventItems.endpoint(holder.get()).equals(endpoint)));
    }

    @Override
    public Optional<WebhookEndpoint> findEndpoint(String endpointId) {
        return table.getItem(TableKeys.webhookEndpoint(endpointId), AccessPattern.WEBHOOK_ENDPOINTS)
                .map(EventItems::endpoint);
    }

    @Override
    public long endpointWrites() {
        return table.outbox.subscriptions().endpointWrites();
    }

    @Override
    public List<WebhookEndpoint> listEndpoints() {
        QueryRequest request = QueryRequest.builder()
                .tableName(table.tableName)
                .keyConditionExpression("PK = :pk AND begins_with(SK, :prefix)")
                .expressionAttributeValues(Map.of(":pk", s(TableKeys.webhookEndpointsPartition()),
                        ":prefix", s(TableKeys.webhookEndpointsPrefix())))
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        return table.query(request, AccessPattern.WEBHOOK_ENDPOINTS, Integer.MAX_VALUE).stream()
                .map(item -> EventItems.endpoint(DynamoDbItems.fromAttributeValues(item))).toList();
    }

    @Override
    public boolean replaceEndpoint(WebhookEndpoint updated, long expectedVersion) {
        return table.outbox.subscriptions().changedIf(conditionalPut(EventItems.endpointItem(updated), SAME_VERSION,
                Map.of("#version", ItemAttributes.VERSION), Map.of(":version", n(expectedVersion)),
                AccessPattern.WEBHOOK_ENDPOINTS, "change a webhook endpoint"));
    }

    @Override
    public boolean deleteEndpoint(String endpointId) {
        var response = table.call("delete a webhook endpoint", () -> table.client.deleteItem(request -> request
                .tableName(table.tableName)
                .key(DynamoDbTable.keyOf(TableKeys.webhookEndpoint(endpointId)))
                .returnValues(ReturnValue.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        table.capacity.record(AccessPattern.WEBHOOK_ENDPOINTS, WRITE,
                response.consumedCapacity());
        return table.outbox.subscriptions().changedIf(response.hasAttributes() && !response.attributes().isEmpty());
    }

    /**
     * A look at the event shards {@link OutboxLooks#nextLook} names, shard after shard until {@code limit} entries
     * came: a shard that answered a full page, or was not reached, is read on the next look too.
     */
    @Override
    public List<AuditEntry> undeliveredEvents(int limit) {
        Map<String, Integer> shards = new HashMap<>();
        List<Looked> found = new ArrayList<>();
        for (int shard : table.outbox.nextLook()) {
            int wanted = limit - found.size();
            if (wanted <= 0) {
                table.outbox.again(shard);
                continue;
            }
            QueryRequest request = outboxQuery(IN_OUTBOX_BY, Map.of(":pk", s(TableKeys.outboxEventPartition(shard)),
                    ":due", s(ANY_TIME))).limit(wanted).build();
            List<Map<String, AttributeValue>> page = table.query(request, AccessPattern.OUTBOX, wanted);
            if (page.size() >= wanted) {
                table.outbox.again(shard);
            }
            for (Map<String, AttributeValue> item : page.subList(0, Math.min(wanted, page.size()))) {
                Map<String, Object> read = DynamoDbItems.fromAttributeValues(item);
                AuditEntry entry = AuditItems.audit(read);
                found.add(new Looked(TableItems.string(read, ItemAttributes.OUTBOX_SK), entry));
                shards.put(EventIds.of(entry), shard);
            }
        }
        shardsOfLastLook = shards;
        found.sort(Comparator.comparing(Looked::outboxSortKey));
        return found.stream().map(Looked::entry).toList();
    }

    /** An entry a look found, with its place in the outbox's order. */
    private record Looked(String outboxSortKey, AuditEntry entry) {
    }

    /**
     * Each event on its own: one that fails (a throttled shard, a dropped connection) stays in the outbox, its shard
     * is read again on the next look, and the others go on; the first failure is thrown once all were tried, so
     * one hot shard never holds back the events of the others.
     */
    @Override
    public void fanOut(List<FanOut> events) {
        Map<String, Integer> shards = shardsOfLastLook;
        StoreException failed = null;
        for (FanOut event : events) {
            try {
                fanOut(event);
            } catch (StoreException e) {
                Integer shard = shards.get(EventIds.of(event.entry()));
                if (shard != null) {
                    table.outbox.again(shard);
                }
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    private void fanOut(FanOut event) {
        for (Delivery delivery : event.deliveries()) {
            table.putIfNew(EventItems.deliveryItem(delivery), EventItems.deliveryKey(delivery),
                    AccessPattern.FAN_OUT);
        }
        AuditEntry entry = event.entry();
        TableKeys.PrimaryKey key = TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId());
        table.updateUnlessConditionFails(UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(DynamoDbTable.keyOf(key))
                .updateExpression("REMOVE OUTBOXPK, OUTBOXSK")
                .conditionExpression("attribute_exists(PK)")
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build(), AccessPattern.FAN_OUT, "take an event out of the outbox");
    }

    @Override
    public List<Delivery> dueDeliveries(String endpointId, Instant now, int limit) {
        List<Supplier<List<Map<String, Object>>>> shards = new ArrayList<>();
        for (String partition : TableKeys.outboxDeliveryPartitions(endpointId)) {
            QueryRequest request = outboxQuery(IN_OUTBOX_BY, Map.of(":pk", s(partition),
                    ":due", s(TableKeys.outboxDueBy(now)))).limit(limit).build();
            shards.add(() -> items(table.query(request, AccessPattern.OUTBOX, limit)));
        }
        return MergedQuery.merge(DynamoDbUnitOfWork.INSTANCE.together(shards), MergedQuery.byOutboxSortKey(), limit)
                .stream().map(EventItems::delivery).toList();
    }

    private static List<Map<String, Object>> items(List<Map<String, AttributeValue>> found) {
        return found.stream().map(DynamoDbItems::fromAttributeValues).toList();
    }

    @Override
    public Optional<Delivery> findDelivery(String endpointId, Instant occurredAt, String eventId) {
        for (TableKeys.PrimaryKey key : EventItems.deliveryKeys(endpointId, occurredAt, eventId)) {
            Optional<Map<String, Object>> item = table.getItem(key, AccessPattern.DELIVERY);
            if (item.isPresent()) {
                return item.map(EventItems::delivery);
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<Delivery> claimDelivery(Delivery delivery, String owner, Instant now, Instant leaseUntil) {
        for (TableKeys.PrimaryKey key : EventItems.deliveryKeys(delivery)) {
            AtKey<Optional<Delivery>> claim = claimAt(key, owner, now, leaseUntil);
            if (claim.found()) {
                return claim.answer();
            }
        }
        return Optional.empty();
    }

    /** An answer from one of a delivery's keys, or none when no item is there (look at the next). */
    private record AtKey<T>(boolean found, T answer) {
        static <T> AtKey<T> none() {
            return new AtKey<>(false, null);
        }
    }

    private AtKey<Optional<Delivery>> claimAt(TableKeys.PrimaryKey key, String owner, Instant now,
                                             Instant leaseUntil) {
        UpdateItemRequest request = UpdateItemRequest.builder()
                .tableName(table.tableName)
                .key(DynamoDbTable.keyOf(key))
                .updateExpression("SET #owner = :owner, #lease = :until")
                .conditionExpression(CLAIMABLE)
                .expressionAttributeNames(Map.of("#status", ItemAttributes.DELIVERY_STATUS, "#due",
                        ItemAttributes.DUE_AT, "#lease", ItemAttributes.LEASE_UNTIL, "#owner", ItemAttributes.LEASE_OWNER))
                .expressionAttributeValues(Map.of(":pending", s(DeliveryStatus.PENDING.name()),
                        ":now", n(now.toEpochMilli()), ":owner", s(owner), ":until", n(leaseUntil.toEpochMilli())))
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                .build();
        // Refused: another relay has it, it is done or not due yet, or this very claim was retried after its answer
        // was lost (the lease is this owner's, to the millisecond), which is claimed all the same.
        return table.conditionalUpdate(request, key, AccessPattern.DELIVERY,
                item -> new AtKey<>(true, Optional.of(EventItems.delivery(item))),
                refused -> refused.isEmpty() ? AtKey.none() : new AtKey<>(true, refused.map(EventItems::delivery)
                        .filter(stored -> stored.status() == DeliveryStatus.PENDING
                                && stored.leaseOwner().equals(Optional.of(owner))
                                && stored.leaseUntil().map(Instant::toEpochMilli)
                                .equals(Optional.of(leaseUntil.toEpochMilli())))));
    }

    @Override
    public boolean recordAttempt(Delivery outcome, String owner) {
        for (TableKeys.PrimaryKey key : EventItems.deliveryKeys(outcome)) {
            AtKey<Boolean> recorded = recordAt(outcome, key, owner);
            if (recorded.found()) {
                return recorded.answer();
            }
        }
        return false;
    }

    private AtKey<Boolean> recordAt(Delivery outcome, TableKeys.PrimaryKey key, String owner) {
        Map<String, Object> item = EventItems.deliveryItem(outcome, key);
        try {
            var response = table.client.putItem(request -> request
                    .tableName(table.tableName)
                    .item(DynamoDbItems.toAttributeValues(item))
                    .conditionExpression(LEASE_HELD)
                    .expressionAttributeNames(Map.of("#owner", ItemAttributes.LEASE_OWNER))
                    .expressionAttributeValues(Map.of(":owner", s(owner)))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
            table.capacity.record(AccessPattern.DELIVERY, WRITE, response.consumedCapacity());
            return new AtKey<>(true, true);
        } catch (ConditionalCheckFailedException e) {
            table.capacity.recordFailedWrite(AccessPattern.DELIVERY, 1);
            // The lease was lost, or this very outcome was written by a first try whose answer was lost.
            Optional<Map<String, Object>> stored = e.hasItem() && !e.item().isEmpty()
                    ? Optional.of(DynamoDbItems.fromAttributeValues(e.item()))
                    : table.getItem(key, AccessPattern.DELIVERY);
            return stored.isEmpty() ? AtKey.none() : new AtKey<>(true,
                    stored.map(EventItems::delivery).equals(Optional.of(EventItems.delivery(item))));
        } catch (SdkException e) {
            throw table.failure("record a webhook delivery attempt", e);
        }
    }

    /**
     * Over the stored delivery where it is: at its shard key if an item is there, else at the previous release's key
     * if one is there, else (a delivery new to this endpoint) at its shard key. Each step is safe to repeat.
     */
    @Override
    public void putDelivery(Delivery delivery) {
        for (TableKeys.PrimaryKey key : EventItems.deliveryKeys(delivery)) {
            if (conditionalPut(EventItems.deliveryItem(delivery, key), EXISTS, Map.of(), Map.of(),
                    AccessPattern.DELIVERY, "put a webhook delivery back")) {
                return;
            }
        }
        var response = table.call("put a webhook delivery", () -> table.client.putItem(request -> request
                .tableName(table.tableName)
                .item(DynamoDbItems.toAttributeValues(EventItems.deliveryItem(delivery)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)));
        table.capacity.record(AccessPattern.DELIVERY, WRITE,
                response.consumedCapacity());
    }

    @Override
    public List<Delivery> deliveries(String endpointId, Instant from, Instant to, int limit) {
        List<Supplier<List<Map<String, Object>>>> shards = new ArrayList<>();
        for (String partition : TableKeys.deliveriesPartitions(endpointId)) {
            QueryRequest request = QueryRequest.builder()
                    .tableName(table.tableName)
                    .keyConditionExpression("PK = :pk AND SK BETWEEN :from AND :to")
                    .expressionAttributeValues(Map.of(":pk", s(partition),
                            ":from", s(TableKeys.deliveryRangeStart(from)), ":to", s(TableKeys.deliveryRangeEnd(to))))
                    .scanIndexForward(false)
                    .consistentRead(true)
                    .limit(limit)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL)
                    .build();
            shards.add(() -> items(table.query(request, AccessPattern.DELIVERY, limit)));
        }
        return MergedQuery.merge(DynamoDbUnitOfWork.INSTANCE.together(shards), MergedQuery.bySortKeyNewestFirst(),
                limit).stream().map(EventItems::delivery).toList();
    }

    /**
     * One Query of at most {@value #STATS_PER_PARTITION} items per outbox partition (each event shard, each
     * endpoint's deliveries), projecting the timestamp only: the read is bounded whatever the backlog. A partition
     * that holds more counts as {@value #STATS_PER_PARTITION}, and the total is then a lower bound.
     */
    @Override
    public OutboxStats outboxStats(Instant now) {
        long pending = 0;
        boolean more = false;
        Optional<Instant> oldest = Optional.empty();
        List<String> partitions = new ArrayList<>(TableKeys.outboxEventPartitions());
        listEndpoints().forEach(endpoint ->
                partitions.addAll(TableKeys.outboxDeliveryPartitions(endpoint.endpointId())));
        for (String partition : partitions) {
            QueryRequest request = outboxQuery(IN_OUTBOX, Map.of(":pk", s(partition)))
                    .projectionExpression("#ts").expressionAttributeNames(Map.of("#ts", ItemAttributes.TIMESTAMP))
                    .limit(STATS_PER_PARTITION).build();
            var response = table.call("count the webhook outbox", () -> table.client.query(request));
            table.capacity.record(AccessPattern.OUTBOX, READ, response.consumedCapacity());
            pending += response.count();
            more |= response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty();
            for (Map<String, AttributeValue> item : response.items()) {
                Instant at = Timestamps.parse(item.get(ItemAttributes.TIMESTAMP).s());
                oldest = oldest.filter(known -> known.isBefore(at)).or(() -> Optional.of(at));
            }
        }
        return new OutboxStats(pending, oldest, more);
    }

    private QueryRequest.Builder outboxQuery(String condition, Map<String, AttributeValue> values) {
        return QueryRequest.builder()
                .tableName(table.tableName)
                .indexName(TableKeys.OUTBOX_INDEX)
                .keyConditionExpression(condition)
                .expressionAttributeValues(values)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
    }

    private boolean conditionalPut(Map<String, Object> item, String condition, Map<String, String> names,
                                   Map<String, AttributeValue> values, AccessPattern pattern, String what) {
        try {
            // DynamoDB refuses an empty map of names or values: a condition without them sends none.
            var response = table.client.putItem(request -> request
                    .tableName(table.tableName)
                    .item(DynamoDbItems.toAttributeValues(item))
                    .conditionExpression(condition)
                    .expressionAttributeNames(names.isEmpty() ? null : names)
                    .expressionAttributeValues(values.isEmpty() ? null : values)
                    .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
            table.capacity.record(pattern, WRITE, response.consumedCapacity());
            return true;
        } catch (ConditionalCheckFailedException e) {
            table.capacity.recordFailedWrite(pattern, 1);
            return false;
        } catch (SdkException e) {
            throw table.failure(what, e);
        }
    }
}

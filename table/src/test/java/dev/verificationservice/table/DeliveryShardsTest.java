package dev.verificationservice.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.WebhookEvent;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An endpoint's deliveries spread over its shards so that one endpoint takes 2,000 events a second with no partition
 * of the table or of the outbox index past DynamoDB's 1,000 write units a second: each event writes its delivery about
 * three times (fan-out, claim, outcome), each write of an item under 1 KB one unit, in the table and in the index.
 */
class DeliveryShardsTest {

    private static final String ENDPOINT = "ep_0123456789abcdef";
    private static final int EVENTS_PER_SECOND = 2_000;
    private static final int WRITES_PER_EVENT = 3;
    private static final int PARTITION_WRITE_UNITS = 1_000;

    @Test
    void twoThousandEventsASecondToOneEndpointKeepEveryPartitionUnderItsWriteUnits() {
        Random random = new Random(7);
        int events = 160_000;
        Map<String, Integer> table = new HashMap<>();
        Map<String, Integer> outbox = new HashMap<>();
        Instant at = Instant.parse("2026-12-01T10:00:00Z");
        for (int i = 0; i < events; i++) {
            Delivery delivery = Delivery.pending(ENDPOINT, event(random, at.plusMillis(i / 2)), at);
            table.merge(EventItems.deliveryKey(delivery).pk(), 1, Integer::sum);
            outbox.merge((String) EventItems.deliveryItem(delivery).get(ItemAttributes.OUTBOX_PK), 1, Integer::sum);
        }

        assertThat(table.keySet()).containsExactlyInAnyOrderElementsOf(TableKeys.deliveriesPartitions(ENDPOINT));
        assertThat(outbox.keySet()).containsExactlyInAnyOrderElementsOf(TableKeys.outboxDeliveryPartitions(ENDPOINT));
        for (Map<String, Integer> partitions : List.of(table, outbox)) {
            int busiest = partitions.values().stream().max(Integer::compare).orElseThrow();
            double unitsASecond = (double) busiest / events * EVENTS_PER_SECOND * WRITES_PER_EVENT;
            assertThat(unitsASecond).as("write units a second of the busiest partition").isLessThan(
                    PARTITION_WRITE_UNITS / 2.0);
        }
    }

    @Test
    void aDeliveryAndItsOutboxEntryAreInTheSameShardAndOnlyItsEndpointsPartitionsHoldIt() {
        Random random = new Random(11);
        List<String> table = TableKeys.deliveriesPartitions(ENDPOINT);
        List<String> outbox = TableKeys.outboxDeliveryPartitions(ENDPOINT);
        Set<String> longerId = new HashSet<>(TableKeys.deliveriesPartitions(ENDPOINT + "0"));
        longerId.addAll(TableKeys.outboxDeliveryPartitions(ENDPOINT + "0"));
        assertThat(longerId).doesNotContainAnyElementsOf(table).doesNotContainAnyElementsOf(outbox);
        for (int i = 0; i < 1_000; i++) {
            Delivery delivery = Delivery.pending(ENDPOINT, event(random, Instant.EPOCH.plusSeconds(i)),
                    Instant.EPOCH.plusSeconds(i));
            int shard = table.indexOf(EventItems.deliveryKey(delivery).pk());
            assertThat(outbox.indexOf((String) EventItems.deliveryItem(delivery).get(ItemAttributes.OUTBOX_PK)))
                    .isEqualTo(shard).isNotNegative();
        }
    }

    @Test
    void shardZeroIsThePreviousReleasesOnePartitionSoAStoredDeliveryIsLookedForThereToo() {
        assertThat(TableKeys.deliveriesPartitions(ENDPOINT).get(0)).isEqualTo("WEBHOOK#" + ENDPOINT);
        assertThat(TableKeys.outboxDeliveryPartitions(ENDPOINT).get(0)).isEqualTo("OUTBOX#DELIVERY#" + ENDPOINT);
        Random random = new Random(13);
        for (int i = 0; i < 100; i++) {
            WebhookEvent event = event(random, Instant.EPOCH.plusSeconds(i));
            List<TableKeys.PrimaryKey> keys = EventItems.deliveryKeys(ENDPOINT, event.occurredAt(), event.eventId());
            assertThat(keys.get(0)).isEqualTo(TableKeys.delivery(ENDPOINT, event.occurredAt(), event.eventId()));
            assertThat(keys.get(keys.size() - 1).pk()).isEqualTo("WEBHOOK#" + ENDPOINT);
            assertThat(keys).doesNotHaveDuplicates().allSatisfy(key -> assertThat(key.sk())
                    .isEqualTo("DELIVERY#" + Timestamps.format(event.occurredAt()) + "#" + event.eventId()));
        }
    }

    private static WebhookEvent event(Random random, Instant at) {
        return WebhookEvent.of(new AuditEntry("user-" + random.nextInt(1_000_000), at, Long.toHexString(
                random.nextLong()), AuditEventType.DEVICE_REVOKED, Map.of(), Optional.empty(), Optional.empty(),
                Optional.empty(), true, Optional.empty(), Optional.empty()));
    }
}

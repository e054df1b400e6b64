package dev.verificationservice.testsupport.dynamodb;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * DynamoDB's billing rules in capacity units, applied to the items a request read or wrote: the benchmarks'
 * bill and the fault proxy's per-partition limits both charge by them. On-demand mode, standard table class:
 * <ul>
 *   <li>item size: attribute names plus values (strings and binaries by their bytes, a number 1 byte per two
 *   significant digits plus 1, a boolean or null 1, a map or list 3 plus 1 per element);</li>
 *   <li>writes: 1 write request unit per started KB of the larger of the item before and after
 *   (PutItem, UpdateItem), of the deleted item (DeleteItem, each delete of a BatchWriteItem), at least 1; a
 *   write whose condition fails is charged the same, for the item as it is;</li>
 *   <li>GSI1 and OUTBOX (projection ALL): each write that puts an item into an index, changes it there or removes it
 *   costs an index write of the same size rule (2 when the index key changes: a delete and a put); items
 *   without an index's keys (a counter; GSI1 for audit entries) cost nothing there; a failed write changes nothing there;</li>
 *   <li>TransactWriteItems: 2 units per started KB for every action (a ConditionCheck included, at least 1 KB),
 *   index writes as above; a cancelled transaction is counted as its prepare half (1 unit per started KB per
 *   action), an assumption: it does not occur on the benchmarked paths;</li>
 *   <li>reads: 1 read request unit per started 4 KB for a strongly consistent GetItem or Query (a Query sums
 *   the sizes of all the items it read, then rounds up once), half that for an eventually consistent one (every
 *   GSI1 query); reading nothing still costs the minimum.</li>
 * </ul>
 */
public final class DynamoDbUnits {

    public static final String GSI1PK = "GSI1PK";
    public static final String GSI1SK = "GSI1SK";

    private DynamoDbUnits() {
    }

    public static long itemSize(Map<String, AttributeValue> item) {
        if (item == null) {
            return 0;
        }
        long size = 0;
        for (Map.Entry<String, AttributeValue> attribute : item.entrySet()) {
            size += utf8(attribute.getKey()) + valueSize(attribute.getValue());
        }
        return size;
    }

    public static long valueSize(AttributeValue value) {
        if (value.s() != null) {
            return utf8(value.s());
        }
        if (value.n() != null) {
            return numberSize(value.n());
        }
        if (value.b() != null) {
            return value.b().asByteArray().length;
        }
        if (value.bool() != null || Boolean.TRUE.equals(value.nul())) {
            return 1;
        }
        if (value.hasM()) {
            long size = 3;
            for (Map.Entry<String, AttributeValue> entry : value.m().entrySet()) {
                size += utf8(entry.getKey()) + valueSize(entry.getValue()) + 1;
            }
            return size;
        }
        if (value.hasL()) {
            long size = 3;
            for (AttributeValue element : value.l()) {
                size += valueSize(element) + 1;
            }
            return size;
        }
        if (value.hasSs()) {
            return value.ss().stream().mapToLong(DynamoDbUnits::utf8).sum();
        }
        if (value.hasNs()) {
            return value.ns().stream().mapToLong(DynamoDbUnits::numberSize).sum();
        }
        if (value.hasBs()) {
            return value.bs().stream().mapToLong(bytes -> bytes.asByteArray().length).sum();
        }
        return 1;
    }

    /** 1 byte per two significant digits, plus 1. */
    public static long numberSize(String number) {
        String digits = new BigDecimal(number).abs().stripTrailingZeros().unscaledValue().toString();
        if (digits.equals("0")) {
            return 2;
        }
        return (digits.length() + 1) / 2 + 1;
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Started 1 KB blocks, at least 1. */
    public static long writeUnits(long bytes) {
        return Math.max(1, (bytes + 1023) / 1024);
    }

    /** Started 4 KB blocks, at least 1; halved when eventually consistent. */
    public static double readUnits(long bytes, boolean consistent) {
        long blocks = Math.max(1, (bytes + 4095) / 4096);
        return consistent ? blocks : blocks / 2.0;
    }

    /** The table's indexes (both project ALL), by their key attributes: GSI1, and OUTBOX (events out, §15). */
    private static final List<List<String>> INDEXES = List.of(List.of(GSI1PK, GSI1SK), List.of("OUTBOXPK", "OUTBOXSK"));

    /** Write units on the indexes for an item that was {@code before} and is {@code after} (either may be null). */
    public static long indexWriteUnits(Map<String, AttributeValue> before, Map<String, AttributeValue> after) {
        return INDEXES.stream().mapToLong(keys -> indexWriteUnits(keys.get(0), keys.get(1), before, after)).sum();
    }

    /**
     * Write units on one index, keyed by {@code pk} and {@code sk} (null: the index has no sort key), for an item
     * that was {@code before} and is {@code after} (either may be null).
     */
    public static long indexWriteUnits(String pk, String sk, Map<String, AttributeValue> before,
                                       Map<String, AttributeValue> after) {
        boolean wasIndexed = indexed(before, pk, sk);
        boolean isIndexed = indexed(after, pk, sk);
        if (!wasIndexed && !isIndexed) {
            return 0;
        }
        if (!wasIndexed) {
            return writeUnits(itemSize(after));
        }
        if (!isIndexed) {
            return writeUnits(itemSize(before));
        }
        boolean sameKey = before.get(pk).equals(after.get(pk))
                && (sk == null || before.get(sk).equals(after.get(sk)));
        if (!sameKey) {
            return writeUnits(itemSize(before)) + writeUnits(itemSize(after));
        }
        return before.equals(after) ? 0 : writeUnits(itemSize(after));
    }

    private static boolean indexed(Map<String, AttributeValue> item, String pk, String sk) {
        return item != null && item.containsKey(pk) && (sk == null || item.containsKey(sk));
    }

    /** Units of a read of these items. */
    public static double readUnits(List<Map<String, AttributeValue>> items, boolean consistent) {
        return readUnits(items.stream().mapToLong(DynamoDbUnits::itemSize).sum(), consistent);
    }
}

package dev.verificationservice.testsupport.dynamodb.faults;

import dev.verificationservice.testsupport.dynamodb.DynamoDbUnits;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Charge;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Kind;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.PartitionKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What a request costs each partition key, by {@link DynamoDbUnits}' rules, for {@link PartitionThrottling}:
 * <ul>
 *   <li>a write (PutItem, UpdateItem, DeleteItem, each item of a BatchWriteItem or TransactWriteItems) reads its
 *   item from the engine first (a consistent GetItem the client never sees) and is charged on the larger of the
 *   item before and after to the table's partition key (twice for a transaction's action, a ConditionCheck
 *   included), and each index write to the index's partition key (the old key and the new one when it moves);
 *   before the write the after image is estimated (a Put's item, a Delete's nothing, an Update's item as it was,
 *   changed where it is indexed), after it the estimate is corrected (an Update's item read again); so an Update
 *   that moves an item into an index it was not in is charged there only afterwards, never refused by it;</li>
 *   <li>a failed condition is charged on the item as it is, a cancelled transaction once per action, neither
 *   on an index; any other error costs nothing;</li>
 *   <li>a GetItem is charged on the item read, a BatchGetItem on each, a Query on the sum of the items it read,
 *   to the key of its key condition (an index's for a Query on an index); a Query whose answer holds less than
 *   it read (a projection, a filter, a count) is sized by the same Query without those, sent to the engine;</li>
 *   <li>anything else (Scan, the control plane) is not charged.</li>
 * </ul>
 * Under concurrent writes to one item the images are read a moment apart from the write: the charge is an
 * estimate, as a test of rates needs and no more.
 */
final class PartitionCharges {

    private static final Pattern EQUALITY = Pattern.compile("([#A-Za-z0-9_.]+)\\s*=\\s*(:[A-Za-z0-9_]+)");
    private static final Pattern PLACEHOLDER = Pattern.compile("[#:][A-Za-z0-9_]+");

    private final PartitionThrottling throttling;
    private final Map<String, TableKeys> schemas = new ConcurrentHashMap<>();

    PartitionCharges(PartitionThrottling throttling) {
        this.throttling = throttling;
    }

    /** A table's partition key and sort key, and each index's (a missing sort key is null). */
    record TableKeys(List<String> key, Map<String, List<String>> indexes) {
    }

    private enum WriteKind { PUT, UPDATE, DELETE, CHECK }

    /** One item a write touches, its image before, and (for a put) the item it writes. */
    private record Target(String table, Map<String, Object> key, WriteKind kind, Map<String, AttributeValue> put,
                          Map<String, AttributeValue> before, int multiplier) {
    }

    /** The outcome of {@link #admit}: charged and to be settled, refused, or not charged at all. */
    sealed interface Decision {
        record Admitted(String operation, Map<String, Object> body, List<Target> targets, List<Charge> estimated)
                implements Decision {
        }

        /**
         * Refused by the buckets of {@code refused}; for a transaction, {@code actions} are the positions of the
         * actions that charge one of them, of {@code transactionActions}.
         */
        record Refused(String operation, List<Charge> refused, Set<Integer> actions, int transactionActions)
                implements Decision {
            boolean byIndex() {
                return refused.stream().anyMatch(charge -> charge.key().ofIndex());
            }
        }

        record Free() implements Decision {
        }
    }

    /** Estimates the request's charges and takes them from the buckets, or finds the keys that refuse it. */
    Decision admit(Upstream engine, String operation, byte[] requestBody) throws IOException {
        Optional<Map<String, Object>> parsed = parse(requestBody);
        if (parsed.isEmpty()) {
            return new Decision.Free();
        }
        Map<String, Object> body = parsed.get();
        List<Target> targets = new ArrayList<>();
        List<List<Charge>> perTarget = new ArrayList<>();
        try {
            estimate(engine, operation, body, targets, perTarget);
        } catch (UnknownTable | ClassCastException | NullPointerException | IllegalArgumentException e) {
            // A request the engine will refuse (no such table, a malformed body): its own answer says so, at no cost.
            return new Decision.Free();
        }
        List<Charge> estimated = perTarget.stream().flatMap(List::stream).toList();
        if (estimated.isEmpty()) {
            return new Decision.Free();
        }
        List<Charge> refused = throttling.admit(estimated);
        if (!refused.isEmpty()) {
            Set<Integer> actions = new TreeSet<>();
            for (int i = 0; i < perTarget.size(); i++) {
                if (perTarget.get(i).stream().anyMatch(charge -> refused.stream().anyMatch(lacking ->
                        lacking.key().equals(charge.key()) && lacking.kind() == charge.kind()))) {
                    actions.add(i);
                }
            }
            return new Decision.Refused(operation, refused, actions, targets.size());
        }
        return new Decision.Admitted(operation, body, targets, estimated);
    }

    /**
     * Fills {@code targets} with the items a write touches, and {@code estimated} with its charges before it runs:
     * one list for each target, in the request's order (a read's in one list).
     */
    private void estimate(Upstream engine, String operation, Map<String, Object> body, List<Target> targets,
                          List<List<Charge>> estimated) throws IOException {
        switch (operation) {
            case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", TransactionEmulator.OPERATION -> {
                for (Target target : writeTargets(engine, operation, body)) {
                    Target read = new Target(target.table(), target.key(), target.kind(), target.put(),
                            item(engine, target.table(), target.key()), target.multiplier());
                    targets.add(read);
                    estimated.add(writeCharges(engine, read, estimatedAfter(read), true,
                            read.kind() == WriteKind.UPDATE));
                }
            }
            case "GetItem", "Query", "BatchGetItem" -> estimated.add(readCharges(engine, operation, body,
                    Optional.empty()));
            default -> {
            }
        }
    }

    /** A table the engine does not know: the request is forwarded uncharged, for the engine to refuse. */
    private static final class UnknownTable extends RuntimeException {
        UnknownTable(String table) {
            super(table, null, false, false);
        }
    }

    /** Corrects the admitted request's charges to what it cost, now that the engine has answered. */
    void settle(Upstream engine, Decision.Admitted admitted, Http.Message answer) throws IOException {
        List<Charge> actual = new ArrayList<>();
        int status = answer.head().status();
        if (!admitted.targets().isEmpty()) {
            if (status == 200) {
                for (Target target : admitted.targets()) {
                    Map<String, AttributeValue> after = switch (target.kind()) {
                        case PUT -> target.put();
                        case DELETE -> null;
                        case CHECK -> target.before();
                        case UPDATE -> item(engine, target.table(), target.key());
                    };
                    actual.addAll(writeCharges(engine, target, after, true, false));
                }
            } else if (TransactionAnswers.isConditionFailure(answer) || TransactionAnswers.isCancellation(answer)) {
                for (Target target : admitted.targets()) {
                    Target once = new Target(target.table(), target.key(), target.kind(), target.put(), target.before(), 1);
                    actual.addAll(writeCharges(engine, once, estimatedAfter(target), false, false));
                }
            }
        } else if (status == 200) {
            actual.addAll(readCharges(engine, admitted.operation(), admitted.body(),
                    Optional.of(TransactionAnswers.parse(answer))));
        }
        throttling.settle(admitted.estimated(), actual);
    }

    // ------------------------------------------------------------------------------------------------ writes

    @SuppressWarnings("unchecked")
    private List<Target> writeTargets(Upstream engine, String operation, Map<String, Object> body)
            throws IOException {
        List<Target> targets = new ArrayList<>();
        switch (operation) {
            case "PutItem" -> targets.add(put(engine, body.get("TableName"), body.get("Item"), 1));
            case "UpdateItem" -> targets.add(keyed(body.get("TableName"), body.get("Key"), WriteKind.UPDATE, 1));
            case "DeleteItem" -> targets.add(keyed(body.get("TableName"), body.get("Key"), WriteKind.DELETE, 1));
            case "BatchWriteItem" -> {
                if (body.get("RequestItems") instanceof Map<?, ?> tables) {
                    for (Map.Entry<?, ?> table : tables.entrySet()) {
                        for (Object write : (List<Object>) table.getValue()) {
                            Map<String, Object> request = (Map<String, Object>) write;
                            if (request.get("PutRequest") instanceof Map<?, ?> put) {
                                targets.add(put(engine, table.getKey(), put.get("Item"), 1));
                            } else if (request.get("DeleteRequest") instanceof Map<?, ?> delete) {
                                targets.add(keyed(table.getKey(), delete.get("Key"), WriteKind.DELETE, 1));
                            }
                        }
                    }
                }
            }
            default -> { // TransactWriteItems: every action twice
                if (body.get("TransactItems") instanceof List<?> items) {
                    for (Object element : items) {
                        Map<String, Object> action = (Map<String, Object>) element;
                        if (action.get("Put") instanceof Map<?, ?> put) {
                            targets.add(put(engine, put.get("TableName"), put.get("Item"), 2));
                        } else if (action.get("Update") instanceof Map<?, ?> update) {
                            targets.add(keyed(update.get("TableName"), update.get("Key"), WriteKind.UPDATE, 2));
                        } else if (action.get("Delete") instanceof Map<?, ?> delete) {
                            targets.add(keyed(delete.get("TableName"), delete.get("Key"), WriteKind.DELETE, 2));
                        } else if (action.get("ConditionCheck") instanceof Map<?, ?> check) {
                            targets.add(keyed(check.get("TableName"), check.get("Key"), WriteKind.CHECK, 2));
                        }
                    }
                }
            }
        }
        return targets;
    }

    @SuppressWarnings("unchecked")
    private Target put(Upstream engine, Object table, Object item, int multiplier) throws IOException {
        Map<String, Object> json = (Map<String, Object>) item;
        Map<String, Object> key = new LinkedHashMap<>();
        for (String attribute : keys(engine, (String) table).key()) {
            key.put(attribute, json.get(attribute));
        }
        return new Target((String) table, key, WriteKind.PUT, attributes(json), null, multiplier);
    }

    @SuppressWarnings("unchecked")
    private static Target keyed(Object table, Object key, WriteKind kind, int multiplier) {
        return new Target((String) table, (Map<String, Object>) key, kind, null, null, multiplier);
    }

    private static Map<String, AttributeValue> estimatedAfter(Target target) {
        return switch (target.kind()) {
            case PUT -> target.put();
            case DELETE -> null;
            case UPDATE, CHECK -> target.before();
        };
    }

    /**
     * The table's charge for a write that changed {@code before} to {@code after}, and its indexes' if asked; with
     * {@code changesIndexed} (an Update's estimate, its after image unknown) an item that stays under an index key
     * is taken to change there, as almost every update of an item in an index that projects ALL does.
     */
    private List<Charge> writeCharges(Upstream engine, Target target, Map<String, AttributeValue> after,
                                      boolean indexes, boolean changesIndexed) throws IOException {
        TableKeys keys = keys(engine, target.table());
        Map<String, AttributeValue> before = target.before();
        List<Charge> charges = new ArrayList<>();
        long size = Math.max(DynamoDbUnits.itemSize(before), DynamoDbUnits.itemSize(after));
        charges.add(new Charge(new PartitionKey(target.table(), "", text(target.key().get(keys.key().get(0)))),
                Kind.WRITE, (double) target.multiplier() * DynamoDbUnits.writeUnits(size)));
        if (!indexes) {
            return charges;
        }
        for (Map.Entry<String, List<String>> index : keys.indexes().entrySet()) {
            String pk = index.getValue().get(0);
            String sk = index.getValue().size() > 1 ? index.getValue().get(1) : null;
            Optional<AttributeValue> was = indexKey(before, pk, sk);
            Optional<AttributeValue> is = indexKey(after, pk, sk);
            if (was.isPresent() && is.isPresent() && !was.get().equals(is.get())) {
                charges.add(indexCharge(target.table(), index.getKey(), was.get(),
                        DynamoDbUnits.indexWriteUnits(pk, sk, before, null)));
                charges.add(indexCharge(target.table(), index.getKey(), is.get(),
                        DynamoDbUnits.indexWriteUnits(pk, sk, null, after)));
            } else if (was.isPresent() || is.isPresent()) {
                long units = changesIndexed && was.isPresent() && is.isPresent()
                        ? DynamoDbUnits.indexWriteUnits(pk, sk, null, after)
                        : DynamoDbUnits.indexWriteUnits(pk, sk, before, after);
                if (units > 0) {
                    charges.add(indexCharge(target.table(), index.getKey(), was.orElseGet(is::get), units));
                }
            }
        }
        return charges;
    }

    private static Optional<AttributeValue> indexKey(Map<String, AttributeValue> item, String pk, String sk) {
        if (item == null || !item.containsKey(pk) || (sk != null && !item.containsKey(sk))) {
            return Optional.empty();
        }
        return Optional.of(item.get(pk));
    }

    private static Charge indexCharge(String table, String index, AttributeValue key, long units) {
        return new Charge(new PartitionKey(table, index, text(key)), Kind.WRITE, units);
    }

    // ------------------------------------------------------------------------------------------------- reads

    /** The read charges of a request, estimated ({@code answer} empty: the least a read costs) or actual. */
    @SuppressWarnings("unchecked")
    private List<Charge> readCharges(Upstream engine, String operation, Map<String, Object> body,
                                     Optional<Map<String, Object>> answer) throws IOException {
        List<Charge> charges = new ArrayList<>();
        switch (operation) {
            case "GetItem" -> {
                String table = (String) body.get("TableName");
                boolean consistent = Boolean.TRUE.equals(body.get("ConsistentRead"));
                long size = answer.map(a -> a.get("Item") instanceof Map<?, ?> item && !item.isEmpty()
                        ? DynamoDbUnits.itemSize(attributes((Map<String, Object>) item)) : 0L).orElse(0L);
                Object key = ((Map<String, Object>) body.get("Key")).get(keys(engine, table).key().get(0));
                charges.add(new Charge(new PartitionKey(table, "", text(key)), Kind.READ,
                        DynamoDbUnits.readUnits(size, consistent)));
            }
            case "BatchGetItem" -> {
                if (!(body.get("RequestItems") instanceof Map<?, ?> tables)) {
                    break;
                }
                Map<?, ?> responses = answer.map(a -> a.get("Responses") instanceof Map<?, ?> r ? r : Map.of())
                        .orElse(Map.of());
                for (Map.Entry<?, ?> entry : tables.entrySet()) {
                    String table = (String) entry.getKey();
                    Map<String, Object> request = (Map<String, Object>) entry.getValue();
                    boolean consistent = Boolean.TRUE.equals(request.get("ConsistentRead"));
                    List<String> keyAttributes = keys(engine, table).key();
                    Map<String, Long> sizes = new LinkedHashMap<>();
                    if (responses.get(table) instanceof List<?> items) {
                        for (Object item : items) {
                            Map<String, Object> json = (Map<String, Object>) item;
                            sizes.put(canonicalKey(json, keyAttributes), DynamoDbUnits.itemSize(attributes(json)));
                        }
                    }
                    for (Object key : (List<Object>) request.get("Keys")) {
                        Map<String, Object> json = (Map<String, Object>) key;
                        charges.add(new Charge(new PartitionKey(table, "", text(json.get(keyAttributes.get(0)))),
                                Kind.READ, DynamoDbUnits.readUnits(
                                        sizes.getOrDefault(canonicalKey(json, keyAttributes), 0L), consistent)));
                    }
                }
            }
            default -> { // Query
                String table = (String) body.get("TableName");
                String index = body.get("IndexName") instanceof String name ? name : "";
                TableKeys keys = keys(engine, table);
                List<String> indexKeys = index.isEmpty() ? keys.key() : keys.indexes().get(index);
                if (indexKeys == null || !(body.get("KeyConditionExpression") instanceof String condition)) {
                    break;
                }
                Optional<Object> value = partitionValue(condition, body, indexKeys.get(0));
                if (value.isEmpty()) {
                    break;
                }
                boolean consistent = Boolean.TRUE.equals(body.get("ConsistentRead"));
                long size = 0;
                if (answer.isPresent()) {
                    Map<String, Object> read = showsAllItRead(body) ? answer.get() : sizingAnswer(engine, body);
                    if (read.get("Items") instanceof List<?> items) {
                        for (Object item : items) {
                            size += DynamoDbUnits.itemSize(attributes((Map<String, Object>) item));
                        }
                    }
                }
                charges.add(new Charge(new PartitionKey(table, index, text(value.get())), Kind.READ,
                        DynamoDbUnits.readUnits(size, consistent)));
            }
        }
        return charges;
    }

    private static boolean showsAllItRead(Map<String, Object> body) {
        return !body.containsKey("ProjectionExpression") && !body.containsKey("AttributesToGet")
                && !body.containsKey("FilterExpression") && !body.containsKey("QueryFilter")
                && (!body.containsKey("Select") || "ALL_ATTRIBUTES".equals(body.get("Select")));
    }

    /** The same Query without projection, filter or count: the items it read, whole. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> sizingAnswer(Upstream engine, Map<String, Object> body)
            throws IOException {
        Map<String, Object> sizing = Json.copy(body);
        for (String member : List.of("ProjectionExpression", "AttributesToGet", "FilterExpression", "QueryFilter",
                "Select", "ReturnConsumedCapacity")) {
            sizing.remove(member);
        }
        String condition = (String) body.get("KeyConditionExpression");
        List<String> used = new ArrayList<>();
        Matcher placeholders = PLACEHOLDER.matcher(condition);
        while (placeholders.find()) {
            used.add(placeholders.group());
        }
        for (String member : List.of("ExpressionAttributeNames", "ExpressionAttributeValues")) {
            if (body.get(member) instanceof Map<?, ?> placeholdersOf) {
                Map<String, Object> kept = new LinkedHashMap<>((Map<String, Object>) placeholdersOf);
                kept.keySet().retainAll(used);
                if (kept.isEmpty()) {
                    sizing.remove(member);
                } else {
                    sizing.put(member, kept);
                }
            }
        }
        Http.Message answer = engine.exchange(IndexLag.request("Query", sizing));
        return answer.head().status() == 200 ? TransactionAnswers.parse(answer) : Map.of();
    }

    /** The value the key condition binds {@code attribute} to ({@code PK = :pk}, names resolved). */
    @SuppressWarnings("unchecked")
    private static Optional<Object> partitionValue(String condition, Map<String, Object> body, String attribute) {
        Map<String, Object> names = body.get("ExpressionAttributeNames") instanceof Map<?, ?> n
                ? (Map<String, Object>) n : Map.of();
        Map<String, Object> values = body.get("ExpressionAttributeValues") instanceof Map<?, ?> v
                ? (Map<String, Object>) v : Map.of();
        Matcher equality = EQUALITY.matcher(condition);
        while (equality.find()) {
            String name = equality.group(1);
            Object resolved = name.startsWith("#") ? names.get(name) : name;
            if (attribute.equals(resolved) && values.containsKey(equality.group(2))) {
                return Optional.of(values.get(equality.group(2)));
            }
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------------------------------------ engine

    /** The item as the engine holds it now (a consistent GetItem the client never sees), or null. */
    @SuppressWarnings("unchecked")
    private static Map<String, AttributeValue> item(Upstream engine, String table,
                                                    Map<String, Object> key) throws IOException {
        Map<String, Object> get = new LinkedHashMap<>();
        get.put("TableName", table);
        get.put("Key", key);
        get.put("ConsistentRead", Boolean.TRUE);
        Http.Message answer = engine.exchange(IndexLag.request("GetItem", get));
        if (answer.head().status() != 200) {
            return null; // a request the engine refuses is refused again when forwarded, and costs nothing
        }
        return TransactionAnswers.parse(answer).get("Item") instanceof Map<?, ?> item && !item.isEmpty()
                ? attributes((Map<String, Object>) item) : null;
    }

    @SuppressWarnings("unchecked")
    private TableKeys keys(Upstream engine, String table) throws IOException {
        TableKeys known = schemas.get(table);
        if (known != null) {
            return known;
        }
        Http.Message answer = engine.exchange(IndexLag.request("DescribeTable", Map.of("TableName", table)));
        if (answer.head().status() != 200) {
            throw new UnknownTable(table);
        }
        Map<String, Object> description = (Map<String, Object>) TransactionAnswers.parse(answer).get("Table");
        Map<String, List<String>> indexes = new LinkedHashMap<>();
        if (description.get("GlobalSecondaryIndexes") instanceof List<?> gsis) {
            for (Object gsi : gsis) {
                Map<String, Object> index = (Map<String, Object>) gsi;
                indexes.put((String) index.get("IndexName"), keySchema(index.get("KeySchema")));
            }
        }
        TableKeys keys = new TableKeys(keySchema(description.get("KeySchema")), Map.copyOf(indexes));
        schemas.put(table, keys);
        return keys;
    }

    /** Partition key first, then the sort key if there is one. */
    @SuppressWarnings("unchecked")
    private static List<String> keySchema(Object schema) {
        List<String> hash = new ArrayList<>();
        List<String> range = new ArrayList<>();
        for (Object element : (List<Object>) schema) {
            Map<String, Object> key = (Map<String, Object>) element;
            ("HASH".equals(key.get("KeyType")) ? hash : range).add((String) key.get("AttributeName"));
        }
        hash.addAll(range);
        return List.copyOf(hash);
    }

    // ------------------------------------------------------------------------------------------------ values

    private static String canonicalKey(Map<String, Object> item, List<String> keyAttributes) {
        Map<String, Object> key = new LinkedHashMap<>();
        keyAttributes.forEach(attribute -> key.put(attribute, item.get(attribute)));
        return Json.canonical(key);
    }

    /** A key value as text: a string itself, a number's digits, a binary's base64. */
    @SuppressWarnings("unchecked")
    private static String text(Object jsonValue) {
        if (jsonValue instanceof Map<?, ?> typed && !typed.isEmpty()) {
            return String.valueOf(((Map<String, Object>) typed).values().iterator().next());
        }
        return String.valueOf(jsonValue);
    }

    private static String text(AttributeValue value) {
        if (value.s() != null) {
            return value.s();
        }
        if (value.n() != null) {
            return value.n();
        }
        return value.b() != null ? Base64.getEncoder().encodeToString(value.b().asByteArray()) : value.toString();
    }

    /** DynamoDB's JSON of an item, as the SDK's values that {@link DynamoDbUnits} sizes. */
    static Map<String, AttributeValue> attributes(Map<String, Object> item) {
        Map<String, AttributeValue> attributes = new LinkedHashMap<>();
        item.forEach((name, value) -> attributes.put(name, value(value)));
        return attributes;
    }

    @SuppressWarnings("unchecked")
    private static AttributeValue value(Object json) {
        Map.Entry<String, Object> typed = ((Map<String, Object>) json).entrySet().iterator().next();
        Object value = typed.getValue();
        return switch (typed.getKey()) {
            case "S" -> AttributeValue.fromS((String) value);
            case "N" -> AttributeValue.fromN(value.toString());
            case "B" -> AttributeValue.fromB(bytes(value));
            case "BOOL" -> AttributeValue.fromBool((Boolean) value);
            case "NULL" -> AttributeValue.fromNul(true);
            case "M" -> AttributeValue.fromM(attributes((Map<String, Object>) value));
            case "L" -> AttributeValue.fromL(((List<Object>) value).stream().map(PartitionCharges::value).toList());
            case "SS" -> AttributeValue.fromSs(((List<Object>) value).stream().map(String::valueOf).toList());
            case "NS" -> AttributeValue.fromNs(((List<Object>) value).stream().map(String::valueOf).toList());
            case "BS" -> AttributeValue.fromBs(((List<Object>) value).stream().map(PartitionCharges::bytes).toList());
            default -> throw new IllegalArgumentException("not a DynamoDB attribute value: " + Json.write(json));
        };
    }

    private static SdkBytes bytes(Object base64) {
        return SdkBytes.fromByteArray(Base64.getDecoder().decode((String) base64));
    }

    private static Optional<Map<String, Object>> parse(byte[] body) {
        try {
            return Optional.of(Json.object(Json.parse(new String(body, StandardCharsets.UTF_8)), "the request"));
        } catch (Json.ParseException e) {
            return Optional.empty();
        }
    }
}

package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Global secondary indexes that lag behind their table, as DynamoDB's do and dynalite's do not: a Query on an
 * index answers from the table as it was at the last {@link #release()}, however long ago, so a test shows
 * what a design does when the index has not caught up yet, without sleeping for it.
 *
 * <p>Why: on DynamoDB a GSI read is eventually consistent (ConsistentRead is refused on a GSI) and a change
 * usually reaches the index within a second, with no upper bound. dynalite updates its indexes in the same
 * step as the table, which lets a design that reads its own write through an index pass every test.
 *
 * <p>How: every table created through the proxy gets a shadow table in the engine ({@value #SHADOW_SUFFIX}
 * appended to its name), created from the same request, so it has the same keys and indexes. The shadow holds
 * the items as the indexes show them. Every write the proxy forwards (PutItem, UpdateItem, DeleteItem,
 * BatchWriteItem, TransactWriteItems) notes the keys it touched; {@link #release()} reads each noted item from
 * the table with a consistent GetItem and writes that state (or its absence) to the shadow, so new items appear,
 * deleted ones disappear and changed ones change in the index, all at once. Reading the state at release
 * rather than at each write makes the view converge to the table, as DynamoDB's index does, whatever order
 * concurrent writes were noted in. A Query naming an {@code IndexName} is sent to the shadow; its answer names
 * the table again (and carries no {@code x-amz-crc32}, as the proxy's own answers do not). Everything else,
 * reads of the table included, is untouched: only the indexes lag.
 *
 * <p>Thread-safe: connection threads note writes and rewrite queries while a test releases.
 */
public final class IndexLag implements AutoCloseable {

    static final String SHADOW_SUFFIX = "--index-view";
    private static final String CRC_HEADER = "x-amz-crc32";
    private static final java.time.format.DateTimeFormatter AMZ_DATE =
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private final Upstream engine;
    /** Table name -> its key attributes, for the tables created through the proxy (the lagged ones). */
    private final Map<String, List<String>> keySchemas = new ConcurrentHashMap<>();
    /** Table name -> the keys written since the last release (canonical JSON -> key); guarded by itself. */
    private final Map<String, Map<String, Map<String, Object>>> pending = new LinkedHashMap<>();

    IndexLag(InetSocketAddress engine) {
        this.engine = new Upstream(engine);
    }

    /**
     * Every change made so far becomes visible in the indexes (those made meanwhile may too). Returns how many
     * items it brought up to date.
     */
    public int release() {
        Map<String, Map<String, Map<String, Object>>> taken;
        synchronized (pending) {
            taken = new LinkedHashMap<>(pending);
            pending.clear();
        }
        int released = 0;
        for (Map.Entry<String, Map<String, Map<String, Object>>> written : taken.entrySet()) {
            String table = written.getKey();
            for (Map<String, Object> key : written.getValue().values()) {
                try {
                    copyToShadow(table, key);
                } catch (IOException e) {
                    throw new UncheckedIOException("could not bring the index view of " + table + " up to date", e);
                }
                released++;
            }
        }
        return released;
    }

    /** How many written items the indexes do not show in their current state yet. */
    public int held() {
        synchronized (pending) {
            return pending.values().stream().mapToInt(Map::size).sum();
        }
    }

    @Override
    public void close() {
        engine.close();
    }

    // ------------------------------------------------------------------------------------ used by the proxy

    /** A Query on an index of a lagged table goes to the shadow; anything else is passed as it is. */
    Http.Message rewriteRequest(String operation, Http.Message request) {
        if (!"Query".equals(operation)) {
            return request;
        }
        Optional<Map<String, Object>> body = parse(request.body());
        if (body.isEmpty() || !(body.get().get("IndexName") instanceof String)
                || !(body.get().get("TableName") instanceof String table) || !keySchemas.containsKey(table)) {
            return request;
        }
        Map<String, Object> shadowed = Json.copy(body.get());
        shadowed.put("TableName", table + SHADOW_SUFFIX);
        return withBody(request, shadowed);
    }

    /** The answer to a rewritten Query names the table, not its shadow. */
    Http.Message rewriteAnswer(Http.Message request, Http.Message answer) {
        String text = new String(answer.body(), StandardCharsets.UTF_8);
        Optional<Map<String, Object>> body = parse(request.body());
        if (body.isEmpty() || !(body.get().get("TableName") instanceof String table) || !table.endsWith(SHADOW_SUFFIX)) {
            return answer;
        }
        String original = table.substring(0, table.length() - SHADOW_SUFFIX.length());
        byte[] bytes = text.replace("\"" + table + "\"", "\"" + original + "\"").getBytes(StandardCharsets.UTF_8);
        Http.Head head = answer.head().without(CRC_HEADER).without("Content-Length")
                .with("Content-Length", Integer.toString(bytes.length));
        return new Http.Message(head, bytes);
    }

    /** After the engine answered {@code request}: a new table gets its shadow, a write notes its keys. */
    void afterForward(String operation, Http.Message request, Http.Message answer) throws IOException {
        if (answer.head().status() != 200) {
            return;
        }
        Optional<Map<String, Object>> parsed = parse(request.body());
        if (parsed.isEmpty()) {
            return;
        }
        Map<String, Object> body = parsed.get();
        switch (operation) {
            case "CreateTable" -> createShadow(request, body);
            case "DeleteTable" -> deleteShadow(request, body);
            case "PutItem" -> note(body.get("TableName"), body.get("Item"));
            case "UpdateItem", "DeleteItem" -> note(body.get("TableName"), body.get("Key"));
            case "BatchWriteItem" -> noteBatch(body);
            case TransactionEmulator.OPERATION -> noteTransaction(body);
            default -> {
            }
        }
    }

    // -------------------------------------------------------------------------------------------- internals

    @SuppressWarnings("unchecked")
    private void createShadow(Http.Message request, Map<String, Object> body) throws IOException {
        if (!(body.get("TableName") instanceof String table) || !(body.get("KeySchema") instanceof List<?> schema)) {
            return;
        }
        List<String> keys = new ArrayList<>();
        for (Object element : schema) {
            keys.add((String) ((Map<String, Object>) element).get("AttributeName"));
        }
        Map<String, Object> shadow = Json.copy(body);
        shadow.put("TableName", table + SHADOW_SUFFIX);
        Http.Message answer = engine.exchange(as(request, "CreateTable", shadow));
        if (answer.head().status() != 200) {
            throw new IOException("could not create the index view of " + table + ": "
                    + new String(answer.body(), StandardCharsets.UTF_8));
        }
        keySchemas.put(table, List.copyOf(keys));
    }

    private void deleteShadow(Http.Message request, Map<String, Object> body) throws IOException {
        if (body.get("TableName") instanceof String table && keySchemas.remove(table) != null) {
            synchronized (pending) {
                pending.remove(table);
            }
            engine.exchange(as(request, "DeleteTable", Map.of("TableName", table + SHADOW_SUFFIX)));
        }
    }

    @SuppressWarnings("unchecked")
    private void noteBatch(Map<String, Object> body) {
        if (!(body.get("RequestItems") instanceof Map<?, ?> tables)) {
            return;
        }
        tables.forEach((table, writes) -> {
            if (writes instanceof List<?> list) {
                for (Object write : list) {
                    Map<String, Object> request = (Map<String, Object>) write;
                    if (request.get("PutRequest") instanceof Map<?, ?> put) {
                        note(table, put.get("Item"));
                    } else if (request.get("DeleteRequest") instanceof Map<?, ?> delete) {
                        note(table, delete.get("Key"));
                    }
                }
            }
        });
    }

    private void noteTransaction(Map<String, Object> body) {
        if (!(body.get("TransactItems") instanceof List<?> items)) {
            return;
        }
        for (Object item : items) {
            if (item instanceof Map<?, ?> action) {
                for (String member : List.of("Put", "Update", "Delete")) {
                    if (action.get(member) instanceof Map<?, ?> fields) {
                        note(fields.get("TableName"), fields.get(member.equals("Put") ? "Item" : "Key"));
                    }
                }
            }
        }
    }

    /** Notes the key of an item (or of a whole item) written in a lagged table. */
    @SuppressWarnings("unchecked")
    private void note(Object tableName, Object itemOrKey) {
        if (!(tableName instanceof String table) || !(itemOrKey instanceof Map<?, ?> attributes)) {
            return;
        }
        List<String> schema = keySchemas.get(table);
        if (schema == null) {
            return;
        }
        Map<String, Object> key = new LinkedHashMap<>();
        for (String attribute : schema) {
            key.put(attribute, ((Map<String, Object>) attributes).get(attribute));
        }
        synchronized (pending) {
            pending.computeIfAbsent(table, ignored -> new LinkedHashMap<>()).put(Json.canonical(key), key);
        }
    }

    /** Writes the item's current state in the table (or its absence) to the shadow. */
    private void copyToShadow(String table, Map<String, Object> key) throws IOException {
        Map<String, Object> get = new LinkedHashMap<>();
        get.put("TableName", table);
        get.put("Key", key);
        get.put("ConsistentRead", Boolean.TRUE);
        Http.Message answer = engine.exchange(request("GetItem", get));
        Map<String, Object> read = parse(answer.body()).orElseThrow(() -> new IOException("unreadable GetItem answer"));
        if (answer.head().status() != 200) {
            throw new IOException("GetItem of " + key + " in " + table + " failed: " + read);
        }
        Http.Message written;
        if (read.get("Item") instanceof Map<?, ?> item) {
            written = engine.exchange(request("PutItem", Map.of("TableName", table + SHADOW_SUFFIX, "Item", item)));
        } else {
            written = engine.exchange(request("DeleteItem", Map.of("TableName", table + SHADOW_SUFFIX, "Key", key)));
        }
        if (written.head().status() != 200) {
            throw new IOException("could not update the index view of " + table + ": "
                    + new String(written.body(), StandardCharsets.UTF_8));
        }
    }

    /** A request of the proxy's own to the engine (dynalite checks no signature). */
    static Http.Message request(String operation, Map<String, Object> body) {
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        Http.Head head = new Http.Head("POST / HTTP/1.1", List.of(
                new Http.Header("Host", "localhost"),
                new Http.Header("Content-Type", "application/x-amz-json-1.0"),
                new Http.Header("X-Amz-Target", "DynamoDB_20120810." + operation),
                new Http.Header("X-Amz-Date", AMZ_DATE.format(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC))),
                new Http.Header("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, "
                        + "SignedHeaders=host, Signature=0"),
                new Http.Header("Content-Length", Integer.toString(bytes.length))));
        return new Http.Message(head, bytes);
    }

    /** The client's request head for another operation and body. */
    private static Http.Message as(Http.Message request, String operation, Map<String, Object> body) {
        Http.Head head = request.head();
        String target = head.header("X-Amz-Target").orElse("DynamoDB_20120810." + operation);
        String api = target.contains(".") ? target.substring(0, target.lastIndexOf('.')) : "DynamoDB_20120810";
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        return new Http.Message(head.without("X-Amz-Target").without("Content-Length").without("Transfer-Encoding")
                .without("Expect").without("Connection")
                .with("X-Amz-Target", api + "." + operation)
                .with("Content-Length", Integer.toString(bytes.length)), bytes);
    }

    private static Http.Message withBody(Http.Message request, Map<String, Object> body) {
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        return new Http.Message(request.head().without("Content-Length").without("Transfer-Encoding")
                .with("Content-Length", Integer.toString(bytes.length)), bytes);
    }

    private static Optional<Map<String, Object>> parse(byte[] body) {
        try {
            return Optional.of(Json.object(Json.parse(new String(body, StandardCharsets.UTF_8)), "the body"));
        } catch (Json.ParseException | RuntimeException e) {
            return Optional.empty();
        }
    }
}

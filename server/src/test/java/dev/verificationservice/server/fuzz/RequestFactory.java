package dev.verificationservice.server.fuzz;

import dev.verificationservice.server.fuzz.FuzzRequest.Header;
import dev.verificationservice.server.fuzz.OpenApiDocument.Operation;
import dev.verificationservice.server.fuzz.OpenApiDocument.Parameter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Generates requests for the operations of the OpenAPI document: first a valid one (every path and query
 * parameter, the JSON body from its schema, the document's security), then, for most requests, one or two
 * mutations that break it in a known way. Nothing here names an endpoint: a new operation in the document is
 * fuzzed as it is.
 */
final class RequestFactory {

    /** The ways a request is broken, with their weights. */
    enum Kind {
        VALID(30),
        WRONG_TYPE(5), NULL_VALUE(3), BAD_VALUE(7), UNKNOWN_ENUM(3), HUGE_STRING(3), DEEP_NESTING(2),
        DUPLICATE_KEY(2), INVALID_UTF8(3), MISSING_FIELDS(4), EXTRA_FIELDS(3), MALFORMED_JSON(5), NOT_AN_OBJECT(2),
        EMPTY_BODY(2),
        CONTENT_TYPE(4), ACCEPT(4), AUTHORIZATION(5),
        PATH_PARAM(8), QUERY(5), METHOD(3), UNKNOWN_PATH(1), BODY_ON_BODYLESS(2);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }

        boolean needsBody() {
            return ordinal() >= WRONG_TYPE.ordinal() && ordinal() <= EMPTY_BODY.ordinal();
        }
    }

    private static final List<String> HUGE_SIZES_BYTES = List.of("2000", "8000", "16000", "16383", "16384", "16385",
            "16500", "20000", "33000", "70000");
    private static final int[] NESTING_DEPTHS = {20, 100, 499, 500, 501, 999, 1000, 1001, 3000, 8100};
    private static final byte[][] INVALID_UTF8 = {
        {(byte) 0xFF}, {(byte) 0xFE, (byte) 0xFF}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xC3}, {(byte) 0x80},
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        {(byte) 0xE2, (byte) 0x82}, {(byte) 0xC3, (byte) 0x28}, {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
    };
    private static final char[] RAW_CONTROLS = {0x00, 0x01, 0x07, 0x08, 0x09, 0x0A, 0x0D, 0x1B, 0x1F};

    private final Random random;
    private final Values values;
    private final OpenApiDocument document;
    /** The key of each bearer security scheme of the document (an application key, an admin key). */
    private final Map<String, String> keys;
    private final Map<Kind, Integer> weights = new EnumMap<>(Kind.class);

    RequestFactory(Random random, Values values, OpenApiDocument document, Map<String, String> keys) {
        this.random = random;
        this.values = values;
        this.document = document;
        // In the given order: Map.copyOf's order changes from run to run, and a seed must replay the same requests.
        this.keys = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(keys));
        for (Kind kind : Kind.values()) {
            weights.put(kind, kind.weight);
        }
    }

    FuzzRequest next(Operation operation) {
        Draft draft = validDraft(operation);
        Kind first = pickKind(operation, kind -> true);
        if (first != Kind.VALID) {
            mutate(draft, first);
            if (random.nextInt(100) < 15) {
                Kind second = pickKind(operation, kind -> kind != Kind.VALID && kind != first);
                mutate(draft, second);
            }
        } else {
            draft.kinds.add("VALID");
        }
        return draft.build();
    }

    private Kind pickKind(Operation operation, Predicate<Kind> allowed) {
        List<Kind> applicable = new ArrayList<>();
        int total = 0;
        for (Kind kind : Kind.values()) {
            if (allowed.test(kind) && applies(kind, operation)) {
                applicable.add(kind);
                total += weights.get(kind);
            }
        }
        int roll = random.nextInt(total);
        for (Kind kind : applicable) {
            roll -= weights.get(kind);
            if (roll < 0) {
                return kind;
            }
        }
        return applicable.get(applicable.size() - 1);
    }

    private static boolean applies(Kind kind, Operation operation) {
        if (kind.needsBody() || kind == Kind.CONTENT_TYPE) {
            return operation.body().isPresent();
        }
        return switch (kind) {
            case PATH_PARAM -> !operation.in("path").isEmpty();
            case BODY_ON_BODYLESS -> operation.body().isEmpty();
            default -> true;
        };
    }

    // ---------------------------------------------------------------- the valid request

    /** A request under construction. */
    private final class Draft {
        final Operation operation;
        final List<String> kinds = new ArrayList<>();
        String method;
        String pathOverride;
        final Map<String, String> pathValues = new LinkedHashMap<>();
        final List<String> query = new ArrayList<>();
        final List<Header> headers = new ArrayList<>();
        /** Members of a JSON object body; null when the body is raw (or absent). */
        List<byte[]> members;
        byte[] rawBody;
        boolean hasBody;
        boolean chunked;

        Draft(Operation operation) {
            this.operation = operation;
            this.method = operation.method();
        }

        String path() {
            if (pathOverride != null) {
                return pathOverride;
            }
            String path = operation.path();
            for (Map.Entry<String, String> value : pathValues.entrySet()) {
                path = path.replace("{" + value.getKey() + "}", value.getValue());
            }
            return path;
        }

        byte[] bodyBytes() {
            if (!hasBody) {
                return null;
            }
            return members != null ? new FuzzRequest.Members(members).bytes() : rawBody;
        }

        void setRaw(byte[] body) {
            hasBody = true;
            members = null;
            rawBody = body;
        }

        /** Members to mutate: the object's members, after turning a raw body back into an empty object if needed. */
        List<byte[]> members() {
            if (members == null) {
                members = new ArrayList<>();
                rawBody = null;
                hasBody = true;
            }
            return members;
        }

        void setHeader(String name, String value) {
            headers.removeIf(header -> header.name().equalsIgnoreCase(name));
            if (value != null) {
                headers.add(new Header(name, value));
            }
        }

        FuzzRequest build() {
            String target = path() + (query.isEmpty() ? "" : "?" + String.join("&", query));
            FuzzRequest.Body body = !hasBody ? null
                    : members != null ? new FuzzRequest.Members(List.copyOf(members)) : new FuzzRequest.Raw(rawBody);
            return new FuzzRequest(operation.toString(), List.copyOf(kinds), method, target, List.copyOf(headers), body,
                    chunked && hasBody);
        }
    }

    private Draft validDraft(Operation operation) {
        Draft draft = new Draft(operation);
        for (Parameter parameter : operation.in("path")) {
            draft.pathValues.put(parameter.name(), encodePath(values.validText(parameter.name(), parameter.schema())));
        }
        for (Parameter parameter : operation.in("query")) {
            if (parameter.required() || random.nextBoolean()) {
                draft.query.add(encodeQuery(parameter.name()) + "="
                        + encodeQuery(values.validText(parameter.name(), parameter.schema())));
            }
        }
        if (operation.bearer()) {
            draft.headers.add(new Header("Authorization", "Bearer " + keyFor(operation)));
        }
        int accept = random.nextInt(10);
        if (accept < 4) {
            draft.headers.add(new Header("Accept", "application/json"));
        } else if (accept < 6) {
            draft.headers.add(new Header("Accept", random.nextBoolean() ? "*/*"
                    : "application/json, application/problem+json"));
        }
        operation.body().ifPresent(body -> {
            draft.headers.add(new Header("Content-Type", random.nextInt(5) == 0 ? body.mediaType() + ";charset=UTF-8"
                    : body.mediaType()));
            draft.members = validMembers(body.schema());
            draft.hasBody = true;
            draft.chunked = random.nextInt(10) == 0;
        });
        return draft;
    }

    /** Names whose valid values decide others' (the delivery target follows the method): generated first. */
    private static final List<String> DECIDING_FIRST = List.of("codetype", "deliverymethod", "format");
    /** Optional extras of the service's bodies that change the request's meaning: included less often. */
    private static final Set<String> RARELY = Set.of("format", "codelength", "pushtoken");

    private List<byte[]> validMembers(JsonNode schema) {
        Map<String, JsonNode> properties = new LinkedHashMap<>();
        schema.path("properties").properties().forEach(entry -> properties.put(entry.getKey(), entry.getValue()));
        Map<String, String> related = random.nextInt(10) < 4 ? values.relatedObject(properties.keySet()) : Map.of();
        List<String> order = new ArrayList<>(properties.keySet());
        order.sort(Comparator.comparingInt(name -> {
            int index = DECIDING_FIRST.indexOf(name.toLowerCase(Locale.ROOT));
            return index < 0 ? DECIDING_FIRST.size() : index;
        }));
        Map<String, String> chosen = new LinkedHashMap<>();
        for (String name : order) {
            String lower = name.toLowerCase(Locale.ROOT);
            boolean required = Values.isRequired(schema, name);
            boolean include = required || related.containsKey(lower)
                    || random.nextInt(100) < (RARELY.contains(lower) ? 20 : 80);
            if (!include) {
                continue;
            }
            String value = related.containsKey(lower) && Values.typeOf(properties.get(name)).equals("string")
                    ? JsonText.string(related.get(lower))
                    : values.valid(name, properties.get(name), chosen);
            chosen.put(name, value);
        }
        List<byte[]> members = new ArrayList<>();
        for (String name : properties.keySet()) {
            if (chosen.containsKey(name)) {
                members.add(JsonText.member(name, chosen.get(name)));
            }
        }
        return members;
    }

    // ---------------------------------------------------------------- mutations

    private void mutate(Draft draft, Kind kind) {
        draft.kinds.add(kind.name());
        switch (kind) {
            case WRONG_TYPE -> replaceValue(draft, (name, schema) -> JsonText.utf8(wrongType(schema)));
            case NULL_VALUE -> replaceValue(draft, (name, schema) -> JsonText.utf8("null"));
            case BAD_VALUE -> replaceValue(draft, (name, schema) -> badString());
            case UNKNOWN_ENUM -> unknownEnum(draft);
            case HUGE_STRING -> hugeString(draft);
            case DEEP_NESTING -> deepNesting(draft);
            case DUPLICATE_KEY -> duplicateKey(draft);
            case INVALID_UTF8 -> invalidUtf8(draft);
            case MISSING_FIELDS -> missingFields(draft);
            case EXTRA_FIELDS -> extraFields(draft);
            case MALFORMED_JSON -> draft.setRaw(malformed(draft));
            case NOT_AN_OBJECT -> draft.setRaw(notAnObject(draft));
            case EMPTY_BODY -> emptyBody(draft);
            case CONTENT_TYPE -> contentType(draft);
            case ACCEPT -> accept(draft);
            case AUTHORIZATION -> authorization(draft);
            case PATH_PARAM -> pathParameter(draft);
            case QUERY -> query(draft);
            case METHOD -> method(draft);
            case UNKNOWN_PATH -> unknownPath(draft);
            case BODY_ON_BODYLESS -> {
                draft.setHeader("Content-Type", "application/json");
                draft.setRaw(JsonText.utf8(random.nextBoolean() ? "{\"userId\":\"" + values.user() + "\"}"
                        : "{\"a\":[1,2,{\"b\":null}]}"));
            }
            case VALID -> {
                // nothing to break
            }
        }
    }

    private interface ValueMaker {
        byte[] make(String name, JsonNode schema);
    }

    /** Replaces the value of one member of the body (or adds one from the schema, when the body has none). */
    private void replaceValue(Draft draft, ValueMaker maker) {
        JsonNode schema = bodySchema(draft);
        List<byte[]> members = draft.members();
        Map<String, JsonNode> properties = new LinkedHashMap<>();
        schema.path("properties").properties().forEach(entry -> properties.put(entry.getKey(), entry.getValue()));
        String name;
        int index;
        if (!members.isEmpty() && (properties.isEmpty() || random.nextInt(4) > 0)) {
            index = random.nextInt(members.size());
            name = JsonText.keyOf(members.get(index));
            if (name == null) {
                name = "x";
            }
        } else {
            name = properties.isEmpty() ? "value" : new ArrayList<>(properties.keySet()).get(random.nextInt(properties.size()));
            index = -1;
        }
        JsonNode fieldSchema = properties.getOrDefault(name, JsonNodeFactory.instance.objectNode());
        byte[] member = JsonText.member(name, maker.make(name, fieldSchema));
        if (index >= 0) {
            members.set(index, member);
        } else {
            members.add(random.nextInt(members.size() + 1), member);
        }
    }

    private JsonNode bodySchema(Draft draft) {
        return draft.operation.body().map(OpenApiDocument.RequestBody::schema)
                .orElse(JsonNodeFactory.instance.objectNode());
    }

    private String wrongType(JsonNode schema) {
        String type = Values.typeOf(schema);
        if (type.equals("integer") || type.equals("number")) {
            return values.pick(new String[] {"\"6\"", "6.5", "6.0", "1e2", "1e400", "-1e400", "99999999999999999999",
                "-9223372036854775809", "9223372036854775808", "2147483648", "-2147483649", "0", "-1", "true",
                "\"\"", "[]", "{}", "[6]", "-0", "{\"value\":6}"});
        }
        if (type.equals("boolean")) {
            return values.pick(new String[] {"\"true\"", "1", "0", "[]", "{}", "\"yes\""});
        }
        return values.pick(new String[] {"0", "-1", "1.5", "1e400", "-1e400", "99999999999999999999999", "true",
            "false", "[]", "[\"a\"]", "{}", "{\"a\":\"b\"}", "[null]", "0.0", "-0", "{\"$ref\":\"#/x\"}",
            "[\"" + values.user() + "\"]", "{\"userId\":\"" + values.user() + "\"}"});
    }

    /** A string value that is valid JSON but not a valid input: or, now and then, a raw control character (invalid JSON). */
    private byte[] badString() {
        if (random.nextInt(6) == 0) {
            char control = RAW_CONTROLS[random.nextInt(RAW_CONTROLS.length)];
            return JsonText.utf8("\"" + values.user() + control + "x\"");
        }
        String[] fixed = {
            "", " ", "\t", "\n", "#", "a#b", "USER#fuzz-user-1", "CODE#x", "AUDIT#2026-11-30T10:00:00.000Z#x",
            "RATELIMIT#fuzz-user-1#SEND", "DEVICE#fuzz-device-1", "a b", " fuzz-user-1", "fuzz-user-1 ", "a/b", "a\\b",
            "..", ".", "a%2Fb", "\u0000", "a\u0000b", "\u0007", "\u001f", "\u007f", "\u0085", "\u2028", "\ud800",
            "\udfff", "x\ud800", "\udc00x", "\u00e9", "\u00e9t\u00e9", "\ud83d\ude00", "\u202e", "\ufeff", "\uffff",
            "'; DROP TABLE items; --", "\" OR 1=1 --", "%s%n%x", "${jndi:ldap://127.0.0.1/a}", "<script>x</script>",
            "null", "true", "0", "-1", "1e400", "9".repeat(20), "+", "+0", "+1234567", "+1234567890123456",
            "+01234567890", "+44 7700 900123", "a@b", "@example.com", "jane@", "jane@example", "jane@@example.com",
            "jane@exa mple.com", "x".repeat(65) + "@example.com", "a@" + "b".repeat(250) + ".com", "jane@example.com.",
            "::", ":::1", "1::2::3", "256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "::ffff:999.1.1.1", "fe80::1%eth0",
            "\u0661\u0662\u0663\u0664\u0665\u0666", "12345", "12345678901", "123 456", "000000", "A".repeat(42),
            "A".repeat(44), "A".repeat(43) + "=", "/".repeat(43), "+".repeat(43), "A".repeat(128), "A".repeat(129),
            "A".repeat(513), "A".repeat(4097), "\u00c5".repeat(128), "WEB WEB", "W".repeat(33),
        };
        if (random.nextInt(5) == 0) {
            return JsonText.utf8(JsonText.string(randomUnicode(1 + random.nextInt(40))));
        }
        return JsonText.utf8(JsonText.string(values.pick(fixed)));
    }

    /** Random code points from every plane, lone surrogates and controls included. */
    private String randomUnicode(int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int bucket = random.nextInt(6);
            int codePoint = switch (bucket) {
                case 0 -> random.nextInt(0x20);
                case 1 -> 0x20 + random.nextInt(0x5F);
                case 2 -> 0x80 + random.nextInt(0x800 - 0x80);
                case 3 -> 0xD800 + random.nextInt(0x800);
                case 4 -> 0xE000 + random.nextInt(0x2000);
                default -> 0x10000 + random.nextInt(0x100000);
            };
            text.appendCodePoint(codePoint);
        }
        return text.toString();
    }

    private void unknownEnum(Draft draft) {
        JsonNode schema = bodySchema(draft);
        List<String> candidates = new ArrayList<>();
        schema.path("properties").properties().forEach(entry -> {
            if (!values.enumValues(entry.getKey(), entry.getValue()).isEmpty()) {
                candidates.add(entry.getKey());
            }
        });
        if (candidates.isEmpty()) {
            replaceValue(draft, (name, fieldSchema) -> badString());
            return;
        }
        String name = values.pick(candidates);
        String valid = values.pick(values.enumValues(name, schema.path("properties").path(name)));
        String[] variants = {valid.toLowerCase(Locale.ROOT), valid + " ", " " + valid, valid + "\u0000",
            valid.replace('E', '\u0415'), "UNKNOWN", "", "*", valid + valid, valid.substring(0, valid.length() - 1),
            valid.replace('_', '-'), "%" + valid, valid + "#x", "\u0130" + valid.substring(1)};
        String rawValue = random.nextInt(8) == 0 ? "0" : JsonText.string(values.pick(variants));
        List<byte[]> members = draft.members();
        members.removeIf(member -> name.equals(JsonText.keyOf(member)));
        members.add(random.nextInt(members.size() + 1), JsonText.member(name, rawValue));
    }

    /** Pads one string member so that the whole body has exactly one of the sizes around the 16 KB limit. */
    private void hugeString(Draft draft) {
        List<byte[]> members = draft.members();
        int target = Integer.parseInt(values.pick(HUGE_SIZES_BYTES));
        String name;
        int index;
        if (!members.isEmpty() && random.nextInt(4) > 0) {
            index = random.nextInt(members.size());
            name = JsonText.keyOf(members.get(index));
            name = name == null ? "x" : name;
        } else {
            name = random.nextBoolean() ? "padding" : "userAgent";
            index = -1;
        }
        byte[] placeholder = JsonText.member(name, "\"\"");
        if (index >= 0) {
            members.set(index, placeholder);
        } else {
            index = members.size();
            members.add(placeholder);
        }
        int base = new FuzzRequest.Members(members).bytes().length;
        int missing = Math.max(0, target - base);
        String[] units = {"a", "\u00e9", "\ud83d\ude00", "\\u0041", "0"};
        int[] unitBytes = {1, 2, 4, 6, 1};
        int choice = random.nextInt(units.length);
        StringBuilder filler = new StringBuilder(missing);
        filler.append(units[choice].repeat(missing / unitBytes[choice]));
        filler.append("a".repeat(missing % unitBytes[choice]));
        members.set(index, JsonText.member(name, "\"" + filler + "\""));
    }

    private void deepNesting(Draft draft) {
        int depth = NESTING_DEPTHS[random.nextInt(NESTING_DEPTHS.length)];
        int shape = random.nextInt(3);
        StringBuilder nested = new StringBuilder();
        for (int i = 0; i < depth; i++) {
            nested.append(shape == 0 ? "[" : shape == 1 ? "{\"a\":" : (i % 2 == 0 ? "[" : "{\"a\":"));
        }
        nested.append("1");
        for (int i = depth - 1; i >= 0; i--) {
            nested.append(shape == 0 ? "]" : shape == 1 ? "}" : (i % 2 == 0 ? "]" : "}"));
        }
        if (random.nextInt(10) < 3) {
            draft.setRaw(JsonText.utf8(nested.toString()));
        } else {
            String text = nested.toString();
            replaceValue(draft, (name, schema) -> JsonText.utf8(text));
        }
    }

    private void duplicateKey(Draft draft) {
        List<byte[]> members = draft.members();
        if (members.isEmpty()) {
            members.add(JsonText.member("userId", JsonText.string(values.user())));
        }
        byte[] original = members.get(random.nextInt(members.size()));
        String name = JsonText.keyOf(original);
        byte[] copy;
        int variant = random.nextInt(3);
        if (variant == 0 || name == null) {
            copy = original;
        } else if (variant == 1) {
            copy = JsonText.member(name, JsonText.string(values.user()));
        } else {
            copy = JsonText.member(name.toUpperCase(Locale.ROOT), JsonText.string(values.user()));
        }
        members.add(random.nextInt(members.size() + 1), copy);
    }

    private void invalidUtf8(Draft draft) {
        byte[] bad = INVALID_UTF8[random.nextInt(INVALID_UTF8.length)];
        int place = random.nextInt(10);
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        if (place < 7) {
            value.write('"');
            value.writeBytes(JsonText.utf8(values.user()));
            value.writeBytes(bad);
            if (random.nextBoolean()) {
                value.writeBytes(JsonText.utf8("x"));
            }
            value.write('"');
            byte[] raw = value.toByteArray();
            replaceValue(draft, (name, schema) -> raw);
        } else if (place < 9) {
            ByteArrayOutputStream member = new ByteArrayOutputStream();
            member.write('"');
            member.writeBytes(JsonText.utf8("user"));
            member.writeBytes(bad);
            member.writeBytes(JsonText.utf8("Id\":\"" + values.user() + "\""));
            draft.members().add(member.toByteArray());
        } else {
            byte[] body = draft.bodyBytes() == null ? JsonText.utf8("{}") : draft.bodyBytes();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int cut = random.nextInt(body.length + 1);
            out.write(body, 0, cut);
            out.writeBytes(bad);
            out.write(body, cut, body.length - cut);
            draft.setRaw(out.toByteArray());
        }
    }

    private void missingFields(Draft draft) {
        List<byte[]> members = draft.members();
        if (members.isEmpty()) {
            return;
        }
        int remove = random.nextInt(3) == 0 ? members.size() : 1 + random.nextInt(members.size());
        for (int i = 0; i < remove && !members.isEmpty(); i++) {
            members.remove(random.nextInt(members.size()));
        }
    }

    private void extraFields(Draft draft) {
        String[] names = {"extra", "isUsed", "ttl", "pk", "PK", "SK", "GSI1PK", "__proto__", "constructor", "@class",
            "$type", "userId ", "USERID", "", "\u0000", "a".repeat(300), "code", "secret", "count", "limit",
            "eventType", "success", "tokenId"};
        String[] rawValues = {"1", "\"x\"", "true", "null", "{\"a\":[1,2,{}]}", "[]", "\"" + values.user() + "\"",
            "{\"S\":\"USER#fuzz-user-1\"}", "-1"};
        List<byte[]> members = draft.members();
        int count = 1 + random.nextInt(random.nextInt(10) == 0 ? 400 : 5);
        for (int i = 0; i < count; i++) {
            String name = count > 5 ? "extra" + i : values.pick(names);
            members.add(random.nextInt(members.size() + 1), JsonText.member(name, values.pick(rawValues)));
        }
    }

    private byte[] malformed(Draft draft) {
        byte[] valid = draft.bodyBytes() == null ? JsonText.utf8("{\"userId\":\"" + values.user() + "\"}") : draft.bodyBytes();
        int choice = random.nextInt(10);
        if (choice < 5) {
            String[] fixed = {"{", "}", "{\"", "{\"userId\"", "{\"userId\":}", "{\"userId\":\"a\",}", "{,}",
                "{\"a\" \"b\"}", "{'userId':'a'}", "{userId:\"a\"}", "{\"userId\":\"a\"}//c", "/*c*/{}", "# c\n{}",
                "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":-Infinity}", "{\"a\":01}", "{\"a\":.5}", "{\"a\":+1}",
                "{\"a\":0x10}", "\ufeff{}", "{}{}", "{} x", "{}]", "[", "{\"a\":\"\\x41\"}", "{\"a\":\"\\u12\"}",
                "{\"a\":\"\\uZZZZ\"}", "{\"a\":\"unterminated}", "{\"a\":tru}", "{\"a\":nul}", "\u0000",
                "{\"a\":1}\u0000", "{\"a\"\u0000:1}", "{\"userId\"::\"a\"}", "{\"a\":[1,]}", "{\"a\":[,1]}",
                "{\"a\":\"\\\"}", "{\"a\":1 2}", "{\"\\ud800\":1}", ")]}',\n{}", "<json/>", "userId=a&codeType=b"};
            return JsonText.utf8(values.pick(fixed));
        }
        if (choice == 5) {
            byte[] noise = new byte[1 + random.nextInt(200)];
            random.nextBytes(noise);
            return noise;
        }
        if (choice == 6 && valid.length > 1) {
            return java.util.Arrays.copyOf(valid, 1 + random.nextInt(valid.length - 1));
        }
        if (choice == 7 && valid.length > 0) {
            byte[] flipped = valid.clone();
            byte[] replacements = JsonText.utf8("\"{}[],:\\x\u0000 ");
            flipped[random.nextInt(flipped.length)] = replacements[random.nextInt(replacements.length)];
            return flipped;
        }
        if (choice == 8) {
            String encoding = values.pick(new String[] {"UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32BE", "ISO-8859-1"});
            String text = new String(valid, StandardCharsets.UTF_8) + (random.nextBoolean() ? "" : "\u00e9");
            return text.getBytes(java.nio.charset.Charset.forName(encoding));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(valid);
        out.writeBytes(JsonText.utf8(values.pick(new String[] {"x", "}", ",", "{}", " \u0000", "\n{\"a\":1}"})));
        return out.toByteArray();
    }

    private byte[] notAnObject(Draft draft) {
        String valid = draft.bodyBytes() == null ? "{}" : new String(draft.bodyBytes(), StandardCharsets.UTF_8);
        return JsonText.utf8(values.pick(new String[] {"null", "true", "0", "\"str\"", "[]", "[{}]", "[" + valid + "]",
            JsonText.string(valid), "1e999", "-", "[null]", "\"\"", "[" + valid + "," + valid + "]"}));
    }

    private void emptyBody(Draft draft) {
        int choice = random.nextInt(4);
        if (choice == 0) {
            draft.hasBody = false;
            draft.members = null;
            draft.rawBody = null;
        } else {
            draft.setRaw(JsonText.utf8(values.pick(new String[] {"", " ", "\r\n", "\t \n "})));
        }
    }

    private void contentType(Draft draft) {
        String[] variants = {null, "text/plain", "application/xml", "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=xyz", "application/json; charset=bogus", "application/json; charset=UTF-16",
            "application/json; charset=ISO-8859-1", "application/json;charset=utf-8;charset=ascii", "APPLICATION/JSON",
            "application/json-patch+json", "application/merge-patch+json", "application/problem+json", "application/*",
            "*/*", "application", "/", ";", "", "application/json, text/plain", "application/vnd.api+json", "text/json",
            "application/json; boundary=\"x", "application/json; q=0.5", "application/json;;", "application/json; =",
            "application/j\u00f6son", "application/json\u0001", "application/json; charset=\"utf-8\"",
            "application/octet-stream", "image/png", "a".repeat(300) + "/json"};
        String chosen = values.pick(variants);
        draft.setHeader("Content-Type", chosen);
        if (random.nextInt(8) == 0) {
            draft.headers.add(new Header("Content-Type", random.nextBoolean() ? "text/plain" : "application/json"));
        }
    }

    private void accept(Draft draft) {
        String[] variants = {"text/html", "application/xml", "image/png", "application/problem+json", "text/plain",
            "*/*", "application/*", "application/json;q=0", "*/*;q=abc", "a/b/c", "garbage", "",
            "application/json, */*;q=0.1", "text/html;q=1, application/json;q=0.001", "application/json;charset=utf-8",
            "*/json", ";;", "application/json;q=2", "application/json;q=-1", "*", "text/*", "application/json;q=",
            "application/*+json", "application/problem+xml", "text/event-stream", "application/x-ndjson",
            "application/json;level=1;q=0.5", String.join(", ", java.util.Collections.nCopies(200, "text/html")),
            "application/j\u00f6son", "*/*;q=0", "text/html, application/xml;q=0.9"};
        draft.setHeader("Accept", values.pick(variants));
    }

    /** The key the operation's security scheme names; the first key when the scheme is unknown to the test. */
    private String keyFor(Operation operation) {
        String key = keys.get(operation.bearerScheme());
        return key != null ? key : keys.values().iterator().next();
    }

    private void authorization(Draft draft) {
        String key = draft.operation.bearer() ? keyFor(draft.operation) : keys.values().iterator().next();
        // A valid key of another scheme: an admin key on the application API, an application key on the operator API.
        String other = keys.values().stream().filter(candidate -> !candidate.equals(key)).findFirst().orElse("wrong");
        String[] variants = {null, "Bearer " + other, "Bearer " + other, "Bearer wrong", "Bearer ", "Bearer",
            "Basic dXNlcjpwYXNz", "bearer " + key,
            "BEARER " + key, "Bearer  " + key + "  ", "Bearer " + key + "x", "Bearer " + key.substring(1),
            "Bearer " + key.toUpperCase(Locale.ROOT), "Token " + key, key, "Bearer " + "A".repeat(5000),
            "Bearer " + "A".repeat(9000), "Bearer " + key + ", Bearer " + key, "Bearer \u00e9" + key,
            "Bearer " + key + "\u0001", "Bearer\t" + key, "Bearer " + key.substring(0, key.length() / 2)};
        int choice = random.nextInt(variants.length + 2);
        if (choice < variants.length) {
            draft.setHeader("Authorization", variants[choice]);
        } else if (choice == variants.length) {
            draft.setHeader("Authorization", "Bearer wrong");
            draft.headers.add(new Header("Authorization", "Bearer " + key));
        } else {
            draft.setHeader("Authorization", "Bearer " + key);
            draft.headers.add(new Header("Authorization", "Bearer wrong"));
        }
    }

    private void pathParameter(Draft draft) {
        List<Parameter> parameters = draft.operation.in("path");
        Parameter parameter = values.pick(parameters);
        String[] odd = {"%2F", "a%2Fb", "%2f..%2f", "a%5Cb", "%5C", "..", ".", "%2e%2e", "%2E", "...", "a%00b", "%00",
            "a%23b", "%23", "%25", "%25%25", "a%20b", "%20", "a+b", "+", "%2B", "%C3%A9", "%F0%9F%98%80", "%FF", "%C3",
            "%C0%AF", "%ED%A0%80", "a;b=c", ";", "a%3Bb", "~user", "a:b@c.d", "A".repeat(128), "A".repeat(129),
            "A".repeat(1000), "A".repeat(5000), "A".repeat(9000), "%41".repeat(50), "", "%", "%zz", "a%", "%%",
            "a%2", "CON", "null", "{" + parameter.name() + "}", "%7B" + parameter.name() + "%7D", "*", "\\", "\u00e9",
            "a b", "a#b", "a?b", "a\tb", "%0D%0A", "%E2%80%AE", "\u00e9t\u00e9", "%3F", "%2e", "a/b", "a//b",
            "%u0041", "USER%23fuzz-user-1", "fuzz-user-1%00", "%C3%A9".repeat(200)};
        draft.pathValues.put(parameter.name(), values.pick(odd));
        if (random.nextInt(10) == 0) {
            draft.pathOverride = draft.path() + values.pick(new String[] {"/", "//", "/..", "/.", ";x=1", "%2F"});
        }
    }

    private void query(Draft draft) {
        List<Parameter> parameters = draft.operation.in("query");
        List<String> names = new ArrayList<>();
        parameters.forEach(parameter -> names.add(parameter.name()));
        if (names.isEmpty()) {
            names.add(values.pick(new String[] {"limit", "cursor", "x", "userId", "_method", "debug"}));
        }
        int changes = 1 + random.nextInt(3);
        for (int i = 0; i < changes; i++) {
            String name = values.pick(names);
            int choice = random.nextInt(9);
            switch (choice) {
                case 0 -> draft.query.add(encodeQuery(name) + "=" + values.pick(new String[] {"%", "%z", "%zz", "%e9",
                    "%C3%28", "%ED%A0%80", "%FF%FE", "%00", "%0a", "a%", "%%41", "%u0041"}));
                case 1 -> {
                    String existing = draft.query.stream().filter(piece -> piece.startsWith(encodeQuery(name) + "="))
                            .findFirst().orElse(encodeQuery(name) + "=" + encodeQuery(values.validText(name,
                                    JsonNodeFactory.instance.objectNode())));
                    draft.query.add(random.nextBoolean() ? existing
                            : encodeQuery(name) + "=" + encodeQuery(values.validText(name, JsonNodeFactory.instance.objectNode())));
                }
                case 2 -> draft.query.add(encodeQuery(name) + "=" + encodeQuery(values.pick(new String[] {"0", "-1",
                    "101", "1000", "2147483647", "2147483648", "-2147483649", "99999999999999999999", "1e2", "1.5", " 5",
                    "5 ", "+5", "0x10", "\u0663", "", "NaN", "50", "100", "1"})));
                case 3 -> draft.query.add(encodeQuery(name) + "=" + encodeQuery(values.pick(new String[] {
                    "+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z", "+10000-01-01T00:00:00Z",
                    "9999-12-31T23:59:59.999999999Z", "0000-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
                    "1970-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-30T10:00:00+01:00", "2026-11-30",
                    "2026-11-30T24:00:00Z", "2026-11-30T23:59:60Z", "1e10", "now", "2026-11-30T10:00:00z",
                    "2026-11-30T10:00:00.000Z", "2026-11-29T10:00:00Z", "2026-12-01T10:00:00Z", "10000-01-01T00:00:00Z"})));
                case 4 -> draft.query.add(encodeQuery(name) + "=" + encodeQuery(values.pick(new String[] {
                    values.randomString("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 40),
                    "eyJwayI6IlVTRVIjZnV6ei11c2VyLTEiLCJzayI6IkFVRElUIzIwMjYifQ", "=", "A".repeat(3000), "%25%25",
                    "AAAA", "e30", "bnVsbA", "W10", "eyJhIjoxfQ", "\u00e9"})));
                case 5 -> draft.query.add(values.pick(new String[] {"", "=", "&", name, name + "=", "=x", "&&&",
                    name + "=&" + name + "=5", "a=b=c", "x[]=1", "x[0]=1", ";" + name + "=1"}));
                case 6 -> draft.query.add(encodeQuery(name) + "=" + "A".repeat(values.pick(new Integer[] {2000, 7000, 9000, 20000})));
                case 7 -> draft.query.add(encodeQuery(values.pick(new String[] {"foo", "userId", "limit[]", "\u00e9",
                    "a b", "%zz"})) + "=1");
                default -> {
                    // from after to, both valid instants
                    draft.query.removeIf(piece -> piece.startsWith("from=") || piece.startsWith("to="));
                    draft.query.add("from=" + encodeQuery("2026-12-30T00:00:00Z"));
                    draft.query.add("to=" + encodeQuery("2026-11-01T00:00:00Z"));
                }
            }
        }
        if (random.nextInt(20) == 0) {
            java.util.Collections.shuffle(draft.query, random);
        }
    }

    private void method(Draft draft) {
        Set<String> declared = document.methodsOf(draft.operation.path());
        List<String> candidates = new ArrayList<>(List.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS",
                "TRACE", "FOO", "get", "PROPFIND", "CONNECT", "M-SEARCH"));
        candidates.removeIf(declared::contains);
        draft.method = values.pick(candidates);
    }

    private void unknownPath(Draft draft) {
        String path = draft.path();
        String rest = path.startsWith("/v1") ? path.substring(3) : path;
        draft.pathOverride = values.pick(new String[] {path + "/x", path + "/", "/v1/nope", "/v1", "/v1/", "/",
            "/v2" + rest, "/V1" + rest, "/v1/users", "/v1/users/" + values.user(), path + "/..", "/v1/./codes",
            "/v1/codes/../devices", "/dev/outbox/..", "/v1/%2e%2e/v1/codes", "/v1;a=b/codes", "/%76%31/codes",
            "/v3/api-docs/../../v1/codes", "/actuator/../dev/outbox", "/error", "/v1/users//devices", "//v1/codes",
            "/v1/codes/verify/extra", "/swagger-ui/../v1/codes", "/actuator/health/../../v1/codes",
            "/actuator/health/" + values.randomId(), "/actuator/health/x/../liveness", "/actuator/health/liveness/..",
            "/actuator/nope", "/v3/api-docs/x", "/actuator/health/%2e%2e/readiness"});
    }

    // ---------------------------------------------------------------- encoding

    /** Percent-encodes everything but letters, digits and {@code ._~@+:-} (every character an id may hold). */
    static String encodePath(String value) {
        return percentEncode(value, "._~@+:-");
    }

    /** Percent-encodes everything but letters, digits and {@code ._~-} ({@code +} would read as a space). */
    static String encodeQuery(String value) {
        return percentEncode(value, "._~-");
    }

    private static String percentEncode(String value, String safe) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || safe.indexOf(c) >= 0) {
                out.append((char) c);
            } else {
                out.append('%').append(String.format("%02X", c));
            }
        }
        return out.toString();
    }
}

package dev.verificationservice.server.fuzz;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import tools.jackson.databind.JsonNode;

/**
 * Values for request fields and parameters, valid and invalid.
 *
 * <p>Valid values come first from the schema (an {@code enum}, a {@code format}, lengths and bounds). Where the
 * schema says no more than "string", they come from what the answers so far held under the same name (a code
 * read from the outbox, a device secret, a {@code nextCursor}), and then from the service's documented input rules
 * by field name (ids {@code [A-Za-z0-9._@+:-]{1,128}}, email addresses, E.164 numbers, the code types, delivery
 * methods and formats of the core). An unknown field gets a short printable string.
 */
final class Values {

    static final String ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@+:-";
    private static final String BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    private static final String TYPE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
    private static final int SEEN_PER_NAME = 64;
    /** Answer fields whose values a request field of another name takes. */
    private static final Map<String, String> ANSWER_NAME_FOR = Map.of("cursor", "nextcursor");

    private final Random random;
    private final Instant start;
    private final List<String> users = new ArrayList<>();
    private final List<String> devices = new ArrayList<>();
    private final List<String> actions;
    /** String values seen in answers, by lower-case field name. */
    private final Map<String, List<String>> seen = new HashMap<>();
    /** Objects seen in answers (their string members), to reuse values that belong together: a deviceId and its secret. */
    private final List<Map<String, String>> seenObjects = new ArrayList<>();

    /** @param actions the rate-limit actions an operator may lift, in a fixed order (a seed replays its picks) */
    Values(Random random, Instant start, List<String> actions) {
        this.random = random;
        this.start = start;
        this.actions = List.copyOf(actions);
        for (int i = 0; i < 8; i++) {
            users.add("fuzz-user-" + i);
        }
        for (int i = 0; i < 6; i++) {
            devices.add("fuzz-device-" + i);
        }
    }

    private Values(Random random, Values learned) {
        this.random = random;
        this.start = learned.start;
        this.actions = learned.actions;
        this.users.addAll(learned.users);
        this.devices.addAll(learned.devices);
        this.seen.putAll(learned.seen);
        this.seenObjects.addAll(learned.seenObjects);
    }

    /** The same values, learned so far, drawn with another random (each generated request has its own). */
    Values with(Random other) {
        return new Values(other, this);
    }

    // ---------------------------------------------------------------- learning from answers

    /** Remembers the string values of a JSON answer, by field name, and its small objects whole. */
    void learn(JsonNode answer) {
        learn(answer, 0);
    }

    private void learn(JsonNode node, int depth) {
        if (depth > 6) {
            return;
        }
        if (node.isObject()) {
            Map<String, String> strings = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> entry : node.properties()) {
                JsonNode value = entry.getValue();
                if (value.isString() && !value.stringValue().isEmpty() && value.stringValue().length() <= 512) {
                    String name = entry.getKey().toLowerCase(Locale.ROOT);
                    strings.put(name, value.stringValue());
                    remember(seen.computeIfAbsent(name, key -> new ArrayList<>()), value.stringValue(), SEEN_PER_NAME);
                } else {
                    learn(value, depth + 1);
                }
            }
            if (strings.size() >= 2) {
                remember(seenObjects, strings, 256);
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                learn(element, depth + 1);
            }
        }
    }

    private <T> void remember(List<T> list, T value, int cap) {
        if (list.size() < cap) {
            list.add(value);
        } else {
            list.set(random.nextInt(cap), value);
        }
    }

    /** A remembered answer object that shares at least one field with these names, to fill them consistently. */
    Map<String, String> relatedObject(java.util.Collection<String> names) {
        if (seenObjects.isEmpty()) {
            return Map.of();
        }
        for (int attempt = 0; attempt < 8; attempt++) {
            Map<String, String> candidate = seenObjects.get(random.nextInt(seenObjects.size()));
            long shared = names.stream().filter(name -> candidate.containsKey(name.toLowerCase(Locale.ROOT))).count();
            if (shared >= 2 || (shared == 1 && random.nextInt(3) == 0)) {
                return candidate;
            }
        }
        return Map.of();
    }

    private String seenValue(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        List<String> values = seen.get(ANSWER_NAME_FOR.getOrDefault(key, key));
        return values == null || values.isEmpty() ? null : values.get(random.nextInt(values.size()));
    }

    // ---------------------------------------------------------------- valid values

    /**
     * A valid value for a field or parameter, as raw JSON.
     *
     * @param siblings values already chosen for the other fields of the same object (raw JSON), for fields that
     *                 depend on each other (the delivery target on the delivery method)
     */
    String valid(String name, JsonNode schema, Map<String, String> siblings) {
        JsonNode enumeration = schema.path("enum");
        if (enumeration.isArray() && !enumeration.isEmpty()) {
            return enumeration.get(random.nextInt(enumeration.size())).toString();
        }
        if (schema.has("const")) {
            return schema.get("const").toString();
        }
        String type = typeOf(schema);
        switch (type) {
            case "integer", "number" -> {
                return Long.toString(validNumber(name, schema));
            }
            case "boolean" -> {
                return Boolean.toString(random.nextBoolean());
            }
            case "array" -> {
                int count = random.nextInt(3);
                List<String> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(valid(name, schema.path("items"), Map.of()));
                }
                return "[" + String.join(",", items) + "]";
            }
            case "object" -> {
                StringBuilder object = new StringBuilder("{");
                Map<String, String> inner = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
                    if (random.nextBoolean() || isRequired(schema, property.getKey())) {
                        inner.put(property.getKey(), valid(property.getKey(), property.getValue(), inner));
                    }
                }
                inner.forEach((key, value) -> object.append(object.length() > 1 ? "," : "")
                        .append(JsonText.string(key)).append(':').append(value));
                return object.append('}').toString();
            }
            default -> {
                return JsonText.string(validString(name, schema, siblings));
            }
        }
    }

    /** A valid value of a path or query parameter, as text (not yet percent-encoded). */
    String validText(String name, JsonNode schema) {
        String raw = valid(name, schema, Map.of());
        return raw.startsWith("\"") ? JsonText.unquote(raw) : raw;
    }

    static boolean isRequired(JsonNode schema, String property) {
        for (JsonNode required : schema.path("required")) {
            if (required.asString("").equals(property)) {
                return true;
            }
        }
        return false;
    }

    static String typeOf(JsonNode schema) {
        JsonNode type = schema.path("type");
        if (type.isArray()) {
            for (JsonNode option : type) {
                if (!option.asString("").equals("null")) {
                    return option.asString("");
                }
            }
        }
        if (type.isString()) {
            return type.stringValue();
        }
        if (schema.has("properties")) {
            return "object";
        }
        return "string";
    }

    private long validNumber(String name, JsonNode schema) {
        String key = name.toLowerCase(Locale.ROOT);
        if (key.equals("codelength")) {
            return CodeFormat.MIN_NUMERIC_LENGTH
                    + random.nextInt(CodeFormat.MAX_NUMERIC_LENGTH - CodeFormat.MIN_NUMERIC_LENGTH + 1);
        }
        if (key.equals("limit")) {
            return 1 + random.nextInt(100);
        }
        long min = schema.has("minimum") ? schema.get("minimum").asLong() : 0;
        long max = schema.has("maximum") ? schema.get("maximum").asLong() : min + 100;
        return min + (long) (random.nextDouble() * (max - min + 1));
    }

    private String validString(String name, JsonNode schema, Map<String, String> siblings) {
        String format = schema.path("format").asString("");
        switch (format) {
            case "email" -> {
                return email();
            }
            case "date-time" -> {
                return instant();
            }
            case "date" -> {
                return instant().substring(0, 10);
            }
            case "ipv4" -> {
                return ipv4();
            }
            case "ipv6" -> {
                return ipv6();
            }
            case "uuid" -> {
                return java.util.UUID.nameUUIDFromBytes(Long.toString(random.nextLong()).getBytes()).toString();
            }
            case "int32", "int64" -> {
                return Integer.toString(random.nextInt(100));
            }
            default -> {
                // no format: the field's name decides below
            }
        }
        String key = name.toLowerCase(Locale.ROOT);
        // Values from the answers: real codes, secrets, cursors.
        int reuse = switch (key) {
            case "code", "secret", "cursor" -> 60;
            case "userid", "deviceid", "devicetype" -> 15;
            default -> 0;
        };
        if (reuse > 0 && random.nextInt(100) < reuse) {
            String seenValue = seenValue(key);
            if (seenValue != null) {
                return seenValue;
            }
        }
        String hinted = byName(key, siblings);
        if (hinted != null) {
            return hinted;
        }
        int minLength = schema.path("minLength").asInt(1);
        int maxLength = Math.max(minLength, Math.min(schema.path("maxLength").asInt(24), 24));
        return randomString("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.",
                minLength + random.nextInt(maxLength - minLength + 1)).strip().replace(" ", "_") + "x";
    }

    /** The service's own input rules, for fields the document only calls "string". */
    private String byName(String key, Map<String, String> siblings) {
        CodeType codeType = enumValue(CodeType.class, siblings.get("codeType"));
        DeliveryMethod method = enumValue(DeliveryMethod.class, siblings.get("deliveryMethod"));
        return switch (key) {
            case "userid" -> random.nextInt(10) == 0 ? randomId() : users.get(random.nextInt(users.size()));
            case "deviceid" -> random.nextInt(10) == 0 ? randomId() : devices.get(random.nextInt(devices.size()));
            case "codetype" -> pick(CodeType.values()).name();
            case "deliverymethod" -> codeType == null ? pick(DeliveryMethod.values()).name()
                    : pick(codeType.deliveryMethods().toArray(new DeliveryMethod[0])).name();
            case "format" -> codeType == null ? pick(CodeFormat.values()).name() : codeType.defaultFormat().name();
            case "deliverytarget" -> (method == null ? random.nextBoolean() : method == DeliveryMethod.EMAIL)
                    ? email() : e164();
            case "devicetype" -> random.nextBoolean() ? pick(new String[] {"WEB", "IOS", "ANDROID", "web-chrome"})
                    : randomString(TYPE_ALPHABET, 1 + random.nextInt(32));
            case "ipaddress" -> random.nextInt(4) == 0 ? ipv6() : ipv4();
            case "useragent" -> pick(new String[] {"curl/8.5.0", "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0",
                    "fuzz", "Agent \u00e9\u00e8 \u4e2d\u6587"});
            case "devicename" -> pick(new String[] {"Work laptop", "Phone", "Tablet de Jos\u00e9", "x"});
            case "pushtoken" -> randomString(BASE64URL, 16 + random.nextInt(200));
            case "code" -> random.nextBoolean() ? randomString("0123456789", CodeFormat.MIN_NUMERIC_LENGTH
                    + random.nextInt(CodeFormat.MAX_NUMERIC_LENGTH - CodeFormat.MIN_NUMERIC_LENGTH + 1))
                    : randomString(BASE64URL, 43);
            case "secret" -> randomString(BASE64URL, 43);
            case "from" -> instant(start.minus(Duration.ofDays(1 + random.nextInt(30))));
            case "to" -> instant(start.plus(Duration.ofDays(1 + random.nextInt(30))));
            case "limit" -> Integer.toString(1 + random.nextInt(100));
            case "action" -> random.nextInt(10) == 0 ? randomString(TYPE_ALPHABET, 1 + random.nextInt(30))
                    : pick(actions);
            case "cursor" -> randomString(BASE64URL, 20 + random.nextInt(60));
            case "locale" -> pick(new String[] {"en", "pt-BR", "de-AT", "ja", "PT-br", "zh-Hant-TW", "sw", "tr-TR",
                    "en-US-u-ca-gregory", "pt_BR", "x-private", "not a tag"});
            case "context" -> pick(new String[] {"Pay 120.00 EUR to ACME", "Zapłać 99,00 zł", "ログインを承認",
                    "<b>{code}</b> & \"quotes\"", "x".repeat(200), "x".repeat(201)});
            default -> null;
        };
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String rawJson) {
        if (rawJson == null || !rawJson.startsWith("\"")) {
            return null;
        }
        try {
            return Enum.valueOf(type, JsonText.unquote(rawJson));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The enum values a field takes: from the schema, or the core's enums for the fields the document leaves open. */
    List<String> enumValues(String name, JsonNode schema) {
        List<String> values = new ArrayList<>();
        schema.path("enum").forEach(value -> values.add(value.asString("")));
        if (!values.isEmpty()) {
            return values;
        }
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "codetype" -> Arrays.stream(CodeType.values()).map(Enum::name).toList();
            case "deliverymethod" -> Arrays.stream(DeliveryMethod.values()).map(Enum::name).toList();
            case "format" -> Arrays.stream(CodeFormat.values()).map(Enum::name).toList();
            default -> List.of();
        };
    }

    String user() {
        return users.get(random.nextInt(users.size()));
    }

    String randomId() {
        int length = random.nextInt(8) == 0 ? 128 : 1 + random.nextInt(40);
        return randomString(ID_ALPHABET, length);
    }

    String email() {
        String local = pick(new String[] {"jane", "j.doe", "x+tag", "o'brien", "a_b-c", "Z"});
        String domain = pick(new String[] {"example.com", "mail.example.org", "xn--bcher-kva.example", "a.io"});
        // Few distinct addresses and numbers: the per-target limits are reached too.
        return local + random.nextInt(4) + "@" + domain;
    }

    String e164() {
        if (random.nextInt(10) < 7) {
            return pick(new String[] {"+447700123456", "+14155550100", "+33612345678", "+4915112345678", "+819012345678"});
        }
        int digits = 8 + random.nextInt(8);
        StringBuilder number = new StringBuilder("+").append(1 + random.nextInt(9));
        for (int i = 1; i < digits; i++) {
            number.append(random.nextInt(10));
        }
        return number.toString();
    }

    String ipv4() {
        return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
    }

    String ipv6() {
        return pick(new String[] {"2001:db8::1", "::1", "fe80::1ff:fe23:4567:890a", "2001:0db8:0000:0000:0000:ff00:0042:8329",
                "::ffff:192.0.2.128", "2001:db8:85a3::8a2e:370:7334"});
    }

    String instant() {
        return instant(start.plus(Duration.ofMinutes(random.nextInt(60 * 24 * 60) - 60 * 24 * 30)));
    }

    private static String instant(Instant instant) {
        return instant.toString();
    }

    // ---------------------------------------------------------------- helpers

    String randomString(String alphabet, int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    <T> T pick(T[] options) {
        return options[random.nextInt(options.length)];
    }

    <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }
}

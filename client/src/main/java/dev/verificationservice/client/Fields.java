package dev.verificationservice.client;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The members of one JSON object of an answer, read as the API documents them. Unknown members are ignored
 * (a newer service may add some); a missing or mistyped required one is an {@link UnexpectedResponseException}.
 */
final class Fields {

    private final Transport.Answer answer;
    private final JsonNode node;

    Fields(Transport.Answer answer, JsonNode node) {
        this.answer = answer;
        this.node = node;
    }

    /** This object as JSON text, as the service wrote it (what a browser is handed as it is). */
    String json() {
        return node.toString();
    }

    /** Whether the answer has the member, not null. */
    boolean has(String name) {
        JsonNode value = node.get(name);
        return value != null && !value.isNull();
    }

    String text(String name) {
        return optionalText(name).orElseThrow(() -> missing(name, "text"));
    }

    Optional<String> optionalText(String name) {
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isString()) {
            throw missing(name, "text");
        }
        return Optional.of(value.stringValue());
    }

    boolean bool(String name) {
        JsonNode value = node.get(name);
        if (value == null || !value.isBoolean()) {
            throw missing(name, "a boolean");
        }
        return value.booleanValue();
    }

    long number(String name) {
        JsonNode value = node.get(name);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw missing(name, "an integer");
        }
        return value.longValue();
    }

    int integer(String name) {
        long value = number(name);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw missing(name, "an int");
        }
        return (int) value;
    }

    Optional<Integer> optionalInteger(String name) {
        JsonNode value = node.get(name);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(integer(name));
    }

    /** A nested object. */
    Fields object(String name) {
        JsonNode value = node.get(name);
        if (value == null || !value.isObject()) {
            throw missing(name, "an object");
        }
        return new Fields(answer, value);
    }

    /** An array of texts. */
    List<String> texts(String name) {
        JsonNode value = node.get(name);
        if (value == null || !value.isArray()) {
            throw missing(name, "an array");
        }
        List<String> items = new ArrayList<>();
        for (JsonNode item : value.values()) {
            if (!item.isString()) {
                throw missing(name, "an array of texts");
            }
            items.add(item.stringValue());
        }
        return items;
    }

    Instant instant(String name) {
        return optionalInstant(name).orElseThrow(() -> missing(name, "an instant"));
    }

    Optional<Instant> optionalInstant(String name) {
        return optionalText(name).map(text -> {
            try {
                return Instant.parse(text);
            } catch (DateTimeParseException e) {
                throw missing(name, "an ISO-8601 instant");
            }
        });
    }

    <E extends Enum<E>> E enumValue(String name, Class<E> type) {
        String text = text(name);
        try {
            return Enum.valueOf(type, text);
        } catch (IllegalArgumentException e) {
            throw answer.unexpected("'" + name + "' is " + text + ", which this client does not know as a "
                    + type.getSimpleName());
        }
    }

    List<Fields> objects(String name) {
        JsonNode value = node.get(name);
        if (value == null || !value.isArray()) {
            throw missing(name, "an array");
        }
        List<Fields> items = new ArrayList<>();
        for (JsonNode item : value.values()) {
            if (!item.isObject()) {
                throw missing(name, "an array of objects");
            }
            items.add(new Fields(answer, item));
        }
        return items;
    }

    /** The constant of this name, or {@code UNKNOWN} (which {@code type} has) for one a newer service added. */
    static <E extends Enum<E>> E knownOrUnknown(Class<E> type, String name) {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(name)) {
                return constant;
            }
        }
        return Enum.valueOf(type, "UNKNOWN");
    }

    /** An object of text values (other values are kept as their JSON text). */
    Map<String, String> textMap(String name) {
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            return Map.of();
        }
        if (!value.isObject()) {
            throw missing(name, "an object");
        }
        Map<String, String> map = new LinkedHashMap<>();
        value.properties().forEach(entry -> map.put(entry.getKey(),
                entry.getValue().isString() ? entry.getValue().stringValue() : entry.getValue().toString()));
        return map;
    }

    private UnexpectedResponseException missing(String name, String what) {
        return answer.unexpected("'" + name + "' should be " + what);
    }
}

package dev.verificationservice.store.dynamodb;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Translates the core's plain items ({@link dev.verificationservice.table.TableItems}) to DynamoDB
 * attribute values and back: String is S, Long is N, Boolean is BOOL, a map of strings is M.
 */
final class DynamoDbItems {

    private DynamoDbItems() {
    }

    static Map<String, AttributeValue> toAttributeValues(Map<String, Object> item) {
        Map<String, AttributeValue> values = new LinkedHashMap<>();
        item.forEach((name, value) -> values.put(name, toAttributeValue(name, value)));
        return values;
    }

    static Map<String, Object> fromAttributeValues(Map<String, AttributeValue> values) {
        Map<String, Object> item = new LinkedHashMap<>();
        values.forEach((name, value) -> item.put(name, fromAttributeValue(name, value)));
        return item;
    }

    static AttributeValue s(String value) {
        return AttributeValue.builder().s(value).build();
    }

    static AttributeValue n(long value) {
        return AttributeValue.builder().n(Long.toString(value)).build();
    }

    static AttributeValue bool(boolean value) {
        return AttributeValue.builder().bool(value).build();
    }

    private static AttributeValue toAttributeValue(String name, Object value) {
        if (value instanceof String text) {
            return s(text);
        }
        if (value instanceof Long || value instanceof Integer) {
            return n(((Number) value).longValue());
        }
        if (value instanceof Boolean flag) {
            return bool(flag);
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, AttributeValue> entries = new LinkedHashMap<>();
            map.forEach((key, entry) -> entries.put(String.valueOf(key), s(String.valueOf(entry))));
            return AttributeValue.builder().m(entries).build();
        }
        throw new IllegalArgumentException("attribute " + name + " has an unsupported type "
                + (value == null ? "null" : value.getClass().getSimpleName()));
    }

    private static Object fromAttributeValue(String name, AttributeValue value) {
        return switch (value.type()) {
            case S -> value.s();
            case N -> new BigDecimal(value.n()).longValueExact();
            case BOOL -> value.bool();
            case M -> {
                Map<String, String> entries = new LinkedHashMap<>();
                value.m().forEach((key, entry) -> entries.put(key, entry.s()));
                yield entries;
            }
            default -> throw new IllegalStateException("attribute " + name + " has an unexpected type " + value.type());
        };
    }
}

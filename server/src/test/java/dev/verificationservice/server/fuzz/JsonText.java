package dev.verificationservice.server.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Writes JSON by hand, so that the fuzzer controls every byte: escapes, lone surrogates, duplicate keys. */
final class JsonText {

    private JsonText() {
    }

    /** A JSON string literal; a lone surrogate is written as its {@code \\u} escape (valid JSON, invalid Unicode). */
    static String string(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1));
            if (pairedHigh) {
                out.append(c).append(value.charAt(++i));
            } else if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static byte[] member(String key, String rawValue) {
        return (string(key) + ":" + rawValue).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] member(String key, byte[] rawValue) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((string(key) + ":").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(rawValue);
        return out.toByteArray();
    }

    private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();

    /** The text of a JSON string literal written by {@link #string}. */
    static String unquote(String literal) {
        return JSON.readTree(literal).stringValue();
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The key of a member written by {@link #member}, or null when it is not a plain one. */
    static String keyOf(byte[] member) {
        String text = new String(member, StandardCharsets.UTF_8);
        if (!text.startsWith("\"")) {
            return null;
        }
        int end = text.indexOf("\":");
        return end < 1 ? null : text.substring(1, end);
    }
}

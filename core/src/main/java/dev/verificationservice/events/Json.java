package dev.verificationservice.events;

import java.util.Map;

/**
 * The few JSON values an event body holds (strings, booleans, objects of those), written by hand so that the
 * framework-free core needs no JSON library, and so the body is fixed byte for byte once, at fan-out: every retry
 * sends, and signs, the same bytes.
 */
final class Json {

    private Json() {
    }

    static String string(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** An object whose values are already JSON (written by {@link #string} or nested calls). */
    static String object(Map<String, String> jsonValues) {
        StringBuilder out = new StringBuilder("{");
        jsonValues.forEach((name, value) -> {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append(string(name)).append(':').append(value);
        });
        return out.append('}').toString();
    }
}

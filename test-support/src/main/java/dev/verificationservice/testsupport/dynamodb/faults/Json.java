package dev.verificationservice.testsupport.dynamodb.faults;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Just enough JSON for the transaction emulation, on the JDK alone: DynamoDB's JSON protocol bodies parsed into
 * {@code Map<String, Object>} (members in their order), {@code List<Object>}, {@code String}, {@code Boolean},
 * {@link BigDecimal} and {@link #NULL}, and written back.
 */
final class Json {

    /** JSON {@code null}, so that a map value of Java {@code null} never means two things. */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private Json() {
    }

    /** Thrown for text that is not one JSON value. */
    static final class ParseException extends Exception {
        ParseException(String message) {
            super(message);
        }
    }

    static Object parse(String text) throws ParseException {
        Parser parser = new Parser(text);
        parser.skipWhitespace();
        Object value = parser.value();
        parser.skipWhitespace();
        if (parser.position != text.length()) {
            throw new ParseException("text after the JSON value at " + parser.position);
        }
        return value;
    }

    /** The text of the value, members in their order. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, false);
        return out.toString();
    }

    /** The text of the value with the members of every object sorted by name: equal values give equal text. */
    static String canonical(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, true);
        return out.toString();
    }

    /** The object at {@code value}, or a ParseException naming {@code what}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value, String what) throws ParseException {
        if (value instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw new ParseException(what + " is not a JSON object");
    }

    /** A copy that can be changed, members in their order. */
    static Map<String, Object> copy(Map<String, Object> object) {
        return new LinkedHashMap<>(object);
    }

    private static void write(Object value, StringBuilder out, boolean sorted) {
        if (value == null || value == NULL) {
            out.append("null");
        } else if (value instanceof String text) {
            string(text, out);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
            out.append(value);
        } else if (value instanceof BigDecimal number) {
            out.append(number.toString());
        } else if (value instanceof Double number) {
            out.append(number.toString());
        } else if (value instanceof Map<?, ?> map) {
            Map<?, ?> members = sorted ? new TreeMap<>(map) : map;
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> member : members.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string((String) member.getKey(), out);
                out.append(':');
                write(member.getValue(), out, sorted);
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(list.get(i), out, sorted);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
        }
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static final class Parser {
        private final String text;
        private int position;

        Parser(String text) {
            this.text = text;
        }

        Object value() throws ParseException {
            if (position >= text.length()) {
                throw new ParseException("the JSON text ends where a value was expected");
            }
            char c = text.charAt(position);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", NULL);
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        yield number();
                    }
                    throw new ParseException("unexpected '" + c + "' at " + position);
                }
            };
        }

        private Map<String, Object> object() throws ParseException {
            Map<String, Object> members = new LinkedHashMap<>();
            position++; // {
            skipWhitespace();
            if (peek() == '}') {
                position++;
                return members;
            }
            while (true) {
                skipWhitespace();
                if (peek() != '"') {
                    throw new ParseException("a member name was expected at " + position);
                }
                String name = string();
                skipWhitespace();
                expect(':');
                skipWhitespace();
                members.put(name, value());
                skipWhitespace();
                char next = next();
                if (next == '}') {
                    return members;
                }
                if (next != ',') {
                    throw new ParseException("',' or '}' was expected at " + (position - 1));
                }
            }
        }

        private List<Object> array() throws ParseException {
            List<Object> elements = new ArrayList<>();
            position++; // [
            skipWhitespace();
            if (peek() == ']') {
                position++;
                return elements;
            }
            while (true) {
                skipWhitespace();
                elements.add(value());
                skipWhitespace();
                char next = next();
                if (next == ']') {
                    return elements;
                }
                if (next != ',') {
                    throw new ParseException("',' or ']' was expected at " + (position - 1));
                }
            }
        }

        private String string() throws ParseException {
            position++; // "
            StringBuilder value = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return value.toString();
                }
                if (c != '\\') {
                    value.append(c);
                    continue;
                }
                char escaped = next();
                switch (escaped) {
                    case '"', '\\', '/' -> value.append(escaped);
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    case 'n' -> value.append('\n');
                    case 'r' -> value.append('\r');
                    case 't' -> value.append('\t');
                    case 'u' -> {
                        if (position + 4 > text.length()) {
                            throw new ParseException("a \\u escape ends the JSON text");
                        }
                        try {
                            value.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
                        } catch (NumberFormatException e) {
                            throw new ParseException("not a \\u escape at " + position);
                        }
                        position += 4;
                    }
                    default -> throw new ParseException("unknown escape \\" + escaped + " at " + (position - 1));
                }
            }
        }

        private BigDecimal number() throws ParseException {
            int start = position;
            while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0) {
                position++;
            }
            try {
                return new BigDecimal(text.substring(start, position));
            } catch (NumberFormatException e) {
                throw new ParseException("not a number at " + start);
            }
        }

        private Object literal(String word, Object value) throws ParseException {
            if (!text.startsWith(word, position)) {
                throw new ParseException("unexpected text at " + position);
            }
            position += word.length();
            return value;
        }

        void skipWhitespace() {
            while (position < text.length() && " \t\r\n".indexOf(text.charAt(position)) >= 0) {
                position++;
            }
        }

        private char peek() throws ParseException {
            if (position >= text.length()) {
                throw new ParseException("the JSON text ends too early");
            }
            return text.charAt(position);
        }

        private char next() throws ParseException {
            char c = peek();
            position++;
            return c;
        }

        private void expect(char c) throws ParseException {
            if (next() != c) {
                throw new ParseException("'" + c + "' was expected at " + (position - 1));
            }
        }
    }
}

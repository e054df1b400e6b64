package dev.verificationservice.server.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One generated request, exactly as it goes on the wire: the method, the request target (path and query, already
 * encoded, possibly on purpose wrongly), the headers in order, and the body.
 *
 * <p>A JSON object body is kept as its members (each a complete {@code "key":value} in raw bytes) so that a failing
 * request can be shrunk member by member; any other body is kept as raw bytes.
 *
 * @param operation the OpenAPI operation the request was generated from ({@code POST /v1/codes})
 * @param kinds     what was done to it: {@code valid}, or the mutations applied
 * @param chunked   send the body with {@code Transfer-Encoding: chunked} instead of a {@code Content-Length}
 */
record FuzzRequest(String operation, List<String> kinds, String method, String target, List<Header> headers,
                   Body body, boolean chunked) {

    record Header(String name, String value) {
    }

    /** A request body. */
    sealed interface Body permits Members, Raw {
        byte[] bytes();
    }

    /** A JSON object written member by member; a member may hold anything, even invalid UTF-8. */
    record Members(List<byte[]> members) implements Body {
        @Override
        public byte[] bytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write('{');
            for (int i = 0; i < members.size(); i++) {
                if (i > 0) {
                    out.write(',');
                }
                out.writeBytes(members.get(i));
            }
            out.write('}');
            return out.toByteArray();
        }
    }

    record Raw(byte[] bytes) implements Body {
    }

    byte[] bodyBytes() {
        return body == null ? null : body.bytes();
    }

    int size() {
        byte[] bytes = bodyBytes();
        int headerBytes = headers.stream().mapToInt(header -> header.name().length() + header.value().length()).sum();
        return target.length() + headerBytes + (bytes == null ? 0 : bytes.length);
    }

    String kind() {
        return String.join("+", kinds);
    }

    /** The same request, marked as changed in one more way (for the report and the statistics). */
    FuzzRequest withKind(String kind) {
        List<String> more = new java.util.ArrayList<>(kinds.size() + 1);
        more.addAll(kinds.equals(List.of("VALID")) ? List.of() : kinds);
        more.add(kind);
        return new FuzzRequest(operation, List.copyOf(more), method, target, headers, body, chunked);
    }

    FuzzRequest withHeaders(List<Header> newHeaders) {
        return new FuzzRequest(operation, kinds, method, target, List.copyOf(newHeaders), body, chunked);
    }

    FuzzRequest withBody(Body newBody) {
        return new FuzzRequest(operation, kinds, method, target, headers, newBody, chunked);
    }

    FuzzRequest withTarget(String newTarget) {
        return new FuzzRequest(operation, kinds, method, newTarget, headers, body, chunked);
    }

    /** What jqwik prints of a failing sample: the request as sent, with the test's keys masked. */
    @Override
    public String toString() {
        return "\n" + describe(600).replace(FuzzServer.API_KEY, "<API key>").replace(FuzzServer.ADMIN_KEY, "<admin key>")
                + "\n  (" + operation + "; " + String.join(", ", kinds) + ")";
    }

    /** The request as a person would retype it: request line, headers and the body, shortened. */
    String describe(int maxBody) {
        StringBuilder text = new StringBuilder();
        text.append(method).append(' ').append(Printable.of(target, 600)).append('\n');
        for (Header header : headers) {
            text.append("  ").append(header.name()).append(": ").append(Printable.of(header.value(), 300)).append('\n');
        }
        if (chunked) {
            text.append("  Transfer-Encoding: chunked\n");
        }
        byte[] bytes = bodyBytes();
        if (bytes == null) {
            text.append("  (no body)");
        } else {
            text.append("  body (").append(bytes.length).append(" bytes): ").append(Printable.of(bytes, maxBody));
        }
        return text.toString();
    }

    /** Text for a report: printable ASCII stays, everything else is escaped, long text is cut in the middle. */
    static final class Printable {
        private Printable() {
        }

        static String of(String text, int max) {
            return of(text.getBytes(StandardCharsets.UTF_8), max);
        }

        static String of(byte[] bytes, int max) {
            String decoded = escape(bytes);
            if (decoded.length() <= max) {
                return decoded;
            }
            int half = max / 2;
            return decoded.substring(0, half) + "...<" + (decoded.length() - 2 * half) + " chars cut>..."
                    + decoded.substring(decoded.length() - half);
        }

        private static String escape(byte[] bytes) {
            StringBuilder out = new StringBuilder(bytes.length);
            int i = 0;
            while (i < bytes.length) {
                int b = bytes[i] & 0xFF;
                if (b >= 0x20 && b < 0x7F) {
                    out.append((char) b);
                    i++;
                    continue;
                }
                int length = b >= 0xF0 && b < 0xF5 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 1;
                String decoded = null;
                if (length > 1 && i + length <= bytes.length) {
                    String candidate = new String(bytes, i, length, StandardCharsets.UTF_8);
                    byte[] again = candidate.getBytes(StandardCharsets.UTF_8);
                    if (again.length == length && java.util.Arrays.equals(again, 0, length, bytes, i, i + length)
                            && candidate.codePoints().allMatch(Character::isLetterOrDigit)) {
                        decoded = candidate;
                    }
                }
                if (decoded != null) {
                    out.append(decoded);
                    i += length;
                } else {
                    out.append(String.format("\\x%02X", b));
                    i++;
                }
            }
            return out.toString();
        }
    }
}

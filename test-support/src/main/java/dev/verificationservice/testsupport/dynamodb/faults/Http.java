package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Just enough HTTP/1.1 for the proxy: reading and writing one message at a time on a keep-alive connection.
 *
 * <p>Heads are kept as received (start line, header names in their spelling and order), because the AWS SDK
 * checks what the engine sent, {@code x-amz-crc32} in particular. The only rewrite is framing: a body that
 * came chunked or delimited by the end of the connection is passed on with a {@code Content-Length}, so that
 * the proxy never has to stream.
 */
final class Http {

    /** Larger heads are refused: a DynamoDB request or answer head is a few hundred bytes. */
    static final int MAX_HEAD_BYTES = 64 * 1024;
    /** DynamoDB refuses requests over 16 MB; anything far larger is a framing error, not data. */
    static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

    private Http() {
    }

    record Header(String name, String value) {
    }

    /** A request line or status line with the header lines that follow it. */
    record Head(String startLine, List<Header> headers) {

        Head {
            headers = List.copyOf(headers);
        }

        /** The first value of a header, the name compared without case. */
        Optional<String> header(String name) {
            return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).map(Header::value).findFirst();
        }

        /** Whether a comma-separated header such as {@code Connection} lists the token, without case. */
        boolean hasToken(String name, String token) {
            return headers.stream().filter(h -> h.name().equalsIgnoreCase(name))
                    .flatMap(h -> List.of(h.value().split(",")).stream())
                    .anyMatch(value -> value.trim().equalsIgnoreCase(token));
        }

        Head without(String name) {
            return new Head(startLine, headers.stream().filter(h -> !h.name().equalsIgnoreCase(name)).toList());
        }

        Head with(String name, String value) {
            List<Header> more = new ArrayList<>(headers);
            more.add(new Header(name, value));
            return new Head(startLine, more);
        }

        /** The HTTP version of a request line ({@code POST / HTTP/1.1}) or a status line ({@code HTTP/1.1 200 OK}). */
        String version() {
            String[] parts = startLine.split(" ", 3);
            return startLine.startsWith("HTTP/") ? parts[0] : parts.length == 3 ? parts[2] : "HTTP/1.0";
        }

        /** The method of a request line. */
        String method() {
            return startLine.split(" ", 2)[0];
        }

        /** The status code of a status line. */
        int status() throws ProtocolException {
            String[] parts = startLine.split(" ", 3);
            try {
                return Integer.parseInt(parts[1]);
            } catch (RuntimeException e) {
                throw new ProtocolException("not an HTTP status line: " + startLine);
            }
        }

        /** Whether the sender asked to close the connection after this message. */
        boolean closes() {
            if (hasToken("Connection", "close")) {
                return true;
            }
            return "HTTP/1.0".equals(version()) && !hasToken("Connection", "keep-alive");
        }
    }

    /** A whole message whose body is framed by {@code Content-Length} (or has no body). */
    record Message(Head head, byte[] body) {
    }

    /** Reads a head, or returns empty when the peer closed the connection cleanly before sending one. */
    static Optional<Head> readHead(InputStream in) throws IOException {
        String startLine;
        int total = 0;
        do { // RFC 9112 section 2.2: ignore empty lines before a request line
            startLine = readLine(in, true);
            if (startLine == null) {
                return Optional.empty();
            }
            total += startLine.length() + 2;
        } while (startLine.isEmpty());
        List<Header> headers = new ArrayList<>();
        while (true) {
            String line = readLine(in, false);
            total += line.length() + 2;
            if (total > MAX_HEAD_BYTES) {
                throw new ProtocolException("HTTP head longer than " + MAX_HEAD_BYTES + " bytes");
            }
            if (line.isEmpty()) {
                return Optional.of(new Head(startLine, headers));
            }
            if ((line.charAt(0) == ' ' || line.charAt(0) == '\t') && !headers.isEmpty()) {
                Header last = headers.remove(headers.size() - 1); // obsolete line folding
                headers.add(new Header(last.name(), last.value() + " " + line.trim()));
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new ProtocolException("not an HTTP header line: " + line);
            }
            headers.add(new Header(line.substring(0, colon).trim(), line.substring(colon + 1).trim()));
        }
    }

    /** Reads a request body: chunked, by {@code Content-Length}, or none. */
    static Message readRequest(InputStream in, Head head) throws IOException {
        if (isChunked(head)) {
            return reframed(head, readChunked(in));
        }
        return new Message(head, readFixed(in, contentLength(head).orElse(0L)));
    }

    /**
     * Reads a response body after its head: none for HEAD requests and 1xx/204/304 answers, else chunked, by
     * {@code Content-Length}, or up to the end of the connection.
     */
    static Message readResponse(InputStream in, Head head, String requestMethod) throws IOException {
        int status = head.status();
        if ("HEAD".equalsIgnoreCase(requestMethod) || status / 100 == 1 || status == 204 || status == 304) {
            return new Message(head, new byte[0]);
        }
        if (isChunked(head)) {
            return reframed(head, readChunked(in));
        }
        Optional<Long> length = contentLength(head);
        if (length.isPresent()) {
            return new Message(head, readFixed(in, length.get()));
        }
        return reframed(head.with("Connection", "close"), readToEnd(in));
    }

    /** Writes a head and its body in one flush, so that small answers leave in one segment. */
    static void write(OutputStream out, Head head, byte[] body) throws IOException {
        StringBuilder text = new StringBuilder(256).append(head.startLine()).append("\r\n");
        for (Header header : head.headers()) {
            text.append(header.name()).append(": ").append(header.value()).append("\r\n");
        }
        text.append("\r\n");
        byte[] bytes = text.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[bytes.length + body.length];
        System.arraycopy(bytes, 0, all, 0, bytes.length);
        System.arraycopy(body, 0, all, bytes.length, body.length);
        out.write(all);
        out.flush();
    }

    private static Message reframed(Head head, byte[] body) {
        return new Message(head.without("Transfer-Encoding").without("Content-Length")
                .with("Content-Length", Integer.toString(body.length)), body);
    }

    private static boolean isChunked(Head head) {
        return head.header("Transfer-Encoding").map(value -> value.toLowerCase(Locale.ROOT).trim().endsWith("chunked"))
                .orElse(false);
    }

    private static Optional<Long> contentLength(Head head) throws ProtocolException {
        Optional<String> value = head.header("Content-Length");
        if (value.isEmpty()) {
            return Optional.empty();
        }
        try {
            long length = Long.parseLong(value.get().trim());
            if (length < 0 || length > MAX_BODY_BYTES) {
                throw new ProtocolException("Content-Length out of range: " + value.get());
            }
            return Optional.of(length);
        } catch (NumberFormatException e) {
            throw new ProtocolException("Content-Length is not a number: " + value.get());
        }
    }

    private static byte[] readFixed(InputStream in, long length) throws IOException {
        byte[] body = in.readNBytes((int) length);
        if (body.length != length) {
            throw new EOFException("the connection ended after " + body.length + " of " + length + " body bytes");
        }
        return body;
    }

    private static byte[] readChunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine(in, false);
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim();
            long size;
            try {
                size = Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                throw new ProtocolException("not a chunk size: " + sizeLine);
            }
            if (size == 0) {
                while (!readLine(in, false).isEmpty()) {
                    // trailers are dropped: the body is passed on with a Content-Length
                }
                return body.toByteArray();
            }
            if (body.size() + size > MAX_BODY_BYTES) {
                throw new ProtocolException("chunked body longer than " + MAX_BODY_BYTES + " bytes");
            }
            body.write(readFixed(in, size));
            if (!readLine(in, false).isEmpty()) {
                throw new ProtocolException("a chunk is not followed by CRLF");
            }
        }
    }

    private static byte[] readToEnd(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        if (body.length > MAX_BODY_BYTES) {
            throw new ProtocolException("body longer than " + MAX_BODY_BYTES + " bytes");
        }
        return body;
    }

    /**
     * One line without its CRLF (a bare LF is accepted too). At the end of the stream: null if nothing was read
     * and {@code endAllowed}, else an {@link EOFException}.
     */
    private static String readLine(InputStream in, boolean endAllowed) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (endAllowed && line.length() == 0) {
                    return null;
                }
                throw new EOFException("the connection ended inside an HTTP head");
            }
            if (b == '\n') {
                int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') {
                    line.setLength(end - 1);
                }
                return line.toString();
            }
            if (line.length() >= MAX_HEAD_BYTES) {
                throw new ProtocolException("HTTP line longer than " + MAX_HEAD_BYTES + " bytes");
            }
            line.append((char) b);
        }
    }
}

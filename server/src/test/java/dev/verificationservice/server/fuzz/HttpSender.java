package dev.verificationservice.server.fuzz;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Sends a {@link FuzzRequest} to the server. Most requests go through one JDK {@link HttpClient} (HTTP/1.1,
 * keep-alive); what that client refuses to build (a request target {@link URI} cannot parse, such as
 * {@code %zz}, raw non-ASCII or a raw {@code #}; a header value with control or non-ASCII characters; a header
 * the client manages itself) goes byte for byte over a plain socket instead.
 */
final class HttpSender {

    /** One answer: status, headers (names in lower case) and body. Status -1 means no HTTP answer at all. */
    record Answer(int status, Map<String, List<String>> headers, byte[] body, String transport, String error) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static final Set<String> CLIENT_MANAGED_HEADERS = Set.of("connection", "content-length", "expect", "host",
            "upgrade", "transfer-encoding");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    private final int port;
    private final String base;
    private int rawRequests;

    HttpSender(int port) {
        this.port = port;
        this.base = "http://127.0.0.1:" + port;
    }

    int rawRequests() {
        return rawRequests;
    }

    Answer send(FuzzRequest request) {
        URI uri = jdkUri(request.target());
        if (uri == null || !jdkCanSend(request)) {
            rawRequests++;
            return sendRaw(request);
        }
        return sendWithJdkClient(request, uri);
    }

    private URI jdkUri(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7F || c == '#' || c == '\\') {
                return null;
            }
        }
        try {
            URI uri = URI.create(base + target);
            // The JDK client sends the raw path and query; refuse anything it would not send exactly as written.
            String sent = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            return sent.equals(target) ? uri : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean jdkCanSend(FuzzRequest request) {
        if (!request.method().chars().allMatch(c -> c > 0x20 && c < 0x7F && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)
                || request.method().equals("CONNECT")) {
            return false;
        }
        for (FuzzRequest.Header header : request.headers()) {
            if (CLIENT_MANAGED_HEADERS.contains(header.name().toLowerCase(Locale.ROOT))
                    || header.name().isEmpty()
                    || !header.value().chars().allMatch(c -> c >= 0x20 && c < 0x7F)
                    || !header.name().chars().allMatch(c -> c > 0x20 && c < 0x7F && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)
                    || !header.value().equals(header.value().strip())) {
                return false;
            }
        }
        return true;
    }

    private Answer sendWithJdkClient(FuzzRequest request, URI uri) {
        byte[] body = request.bodyBytes();
        HttpRequest.BodyPublisher publisher;
        if (body == null) {
            publisher = HttpRequest.BodyPublishers.noBody();
        } else if (request.chunked()) {
            publisher = HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body));
        } else {
            publisher = HttpRequest.BodyPublishers.ofByteArray(body);
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT).method(request.method(), publisher);
        for (FuzzRequest.Header header : request.headers()) {
            builder.header(header.name(), header.value());
        }
        HttpRequest built;
        try {
            built = builder.build();
        } catch (IllegalArgumentException e) {
            rawRequests++;
            return sendRaw(request);
        }
        try {
            HttpResponse<byte[]> response = client.send(built, HttpResponse.BodyHandlers.ofByteArray());
            Map<String, List<String>> headers = new LinkedHashMap<>();
            response.headers().map().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values));
            return new Answer(response.statusCode(), headers, response.body() == null ? new byte[0] : response.body(),
                    "jdk", null);
        } catch (IOException e) {
            return new Answer(-1, Map.of(), new byte[0], "jdk", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** One request on its own connection, written exactly as generated; the answer is read until the server closes. */
    private Answer sendRaw(FuzzRequest request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes((request.method() + " " + request.target() + " HTTP/1.1\r\n").getBytes(StandardCharsets.UTF_8));
            head.writeBytes(("Host: 127.0.0.1:" + port + "\r\nConnection: close\r\n").getBytes(StandardCharsets.US_ASCII));
            for (FuzzRequest.Header header : request.headers()) {
                head.writeBytes((header.name() + ": " + header.value() + "\r\n").getBytes(StandardCharsets.UTF_8));
            }
            byte[] body = request.bodyBytes();
            if (body != null && request.chunked()) {
                head.writeBytes("Transfer-Encoding: chunked\r\n".getBytes(StandardCharsets.US_ASCII));
            } else if (body != null) {
                head.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            head.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            if (body != null && request.chunked()) {
                for (int offset = 0; offset < body.length; offset += 4096) {
                    int length = Math.min(4096, body.length - offset);
                    head.writeBytes((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    head.write(body, offset, length);
                    head.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                head.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            } else if (body != null) {
                head.writeBytes(body);
            }
            OutputStream out = socket.getOutputStream();
            try {
                out.write(head.toByteArray());
                out.flush();
            } catch (IOException e) {
                // The server may answer and close before reading everything (a body over the limit): read what it said.
            }
            byte[] response = readAll(socket.getInputStream());
            return parse(response);
        } catch (IOException e) {
            return new Answer(-1, Map.of(), new byte[0], "raw", e.toString());
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
            }
        } catch (java.net.SocketException e) {
            // Reset after the answer was written: keep what arrived.
            if (out.size() == 0) {
                throw e;
            }
        }
        return out.toByteArray();
    }

    private static Answer parse(byte[] response) {
        int end = indexOf(response, new byte[] {'\r', '\n', '\r', '\n'});
        if (end < 0 || response.length < 12) {
            return new Answer(-1, Map.of(), response, "raw", "no complete HTTP answer (" + response.length + " bytes)");
        }
        String[] lines = new String(response, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
        int status;
        try {
            status = Integer.parseInt(lines[0].substring(9, 12));
        } catch (RuntimeException e) {
            return new Answer(-1, Map.of(), response, "raw", "bad status line: " + lines[0]);
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), name -> new ArrayList<>())
                        .add(lines[i].substring(colon + 1).trim());
            }
        }
        byte[] body = java.util.Arrays.copyOfRange(response, end + 4, response.length);
        List<String> encoding = headers.get("transfer-encoding");
        if (encoding != null && encoding.stream().anyMatch(value -> value.equalsIgnoreCase("chunked"))) {
            body = dechunk(body);
        }
        return new Answer(status, headers, body, "raw", null);
    }

    private static byte[] dechunk(byte[] chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int position = 0;
        while (position < chunked.length) {
            int lineEnd = indexOf(chunked, new byte[] {'\r', '\n'}, position);
            if (lineEnd < 0) {
                break;
            }
            String sizeText = new String(chunked, position, lineEnd - position, StandardCharsets.ISO_8859_1);
            int semicolon = sizeText.indexOf(';');
            int size;
            try {
                size = Integer.parseInt((semicolon >= 0 ? sizeText.substring(0, semicolon) : sizeText).trim(), 16);
            } catch (NumberFormatException e) {
                break;
            }
            if (size == 0) {
                break;
            }
            int start = lineEnd + 2;
            out.write(chunked, start, Math.min(size, chunked.length - start));
            position = start + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] data, byte[] pattern) {
        return indexOf(data, pattern, 0);
    }

    private static int indexOf(byte[] data, byte[] pattern, int from) {
        outer:
        for (int i = from; i <= data.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

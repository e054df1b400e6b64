package dev.verificationservice.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One HTTP/1.1 request over a plain socket, exactly as written: several Content-Type lines, a body without a
 * type, a chunked body. {@link java.net.http.HttpClient} refuses or tidies up most of these.
 */
final class RawHttp {

    /** The answer: its status, its head (status line and headers) and its body. */
    record Answer(int status, String head, String body) {
        String contentType() {
            return head.lines().filter(line -> line.regionMatches(true, 0, "Content-Type:", 0, 13))
                    .map(line -> line.substring(13).trim()).findFirst().orElse("");
        }

        /** The value of the cookie {@code name} the answer sets; a test fails without it. */
        String cookie(String name) {
            return head.lines().filter(line -> line.startsWith("Set-Cookie: " + name + "="))
                    .map(line -> line.substring(("Set-Cookie: " + name + "=").length(), line.indexOf(';')))
                    .findFirst().orElseThrow(() -> new AssertionError("no cookie " + name + " in " + head));
        }
    }

    private RawHttp() {
    }

    /** Signs in to the console with {@code adminKey}: the session's cookie header. */
    static List<String> consoleSession(int port, String adminKey) {
        Answer signIn = send(port, "GET", "/console/sign-in", List.of(), null);
        String signInToken = signIn.cookie("vs_console_signin");
        Answer signedIn = send(port, "POST", "/console/sign-in", List.of(
                "Cookie: vs_console_signin=" + signInToken, "Content-Type: application/x-www-form-urlencoded"),
                "_csrf=" + signInToken + "&key=" + adminKey);
        return List.of("Cookie: vs_console=" + signedIn.cookie("vs_console"));
    }

    /** A request with a Content-Length body (or none when {@code body} is null). */
    static Answer send(int port, String method, String path, String bearerKey, List<String> contentTypes, String body) {
        List<String> headers = new ArrayList<>();
        if (bearerKey != null) {
            headers.add("Authorization: Bearer " + bearerKey);
        }
        contentTypes.forEach(type -> headers.add("Content-Type: " + type));
        return send(port, method, path, headers, body);
    }

    /** A request with these header lines, as written, and a Content-Length body (or none when null). */
    static Answer send(int port, String method, String path, List<String> headers, String body) {
        StringBuilder head = head(method, path, headers);
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            head.append("Content-Length: ").append(bytes.length).append("\r\n");
        }
        head.append("\r\n");
        return exchange(port, head.toString().getBytes(StandardCharsets.UTF_8), bytes);
    }

    /** A request whose body goes in chunks of {@code chunkSize} bytes, with no Content-Length. */
    static Answer sendChunked(int port, String method, String path, List<String> headers, byte[] body, int chunkSize) {
        StringBuilder head = head(method, path, headers);
        head.append("Transfer-Encoding: chunked\r\n\r\n");
        ByteArrayOutputStream chunked = new ByteArrayOutputStream();
        for (int offset = 0; offset < body.length; offset += chunkSize) {
            int length = Math.min(chunkSize, body.length - offset);
            chunked.writeBytes((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            chunked.write(body, offset, length);
            chunked.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        chunked.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return exchange(port, head.toString().getBytes(StandardCharsets.UTF_8), chunked.toByteArray());
    }

    private static StringBuilder head(String method, String path, List<String> headers) {
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        headers.forEach(header -> head.append(header).append("\r\n"));
        return head;
    }

    private static Answer exchange(int port, byte[] head, byte[] body) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(head);
            try {
                out.write(body);
                out.flush();
            } catch (IOException e) {
                // The server may answer and close before the whole body is sent (a 413 while it is read).
            }
            byte[] response = readAll(socket.getInputStream());
            int split = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 0);
            String answerHead = new String(response, 0, split < 0 ? response.length : split, StandardCharsets.ISO_8859_1);
            byte[] answerBody = split < 0 ? new byte[0] : Arrays.copyOfRange(response, split + 4, response.length);
            if (answerHead.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked")) {
                answerBody = unchunk(answerBody);
            }
            return new Answer(Integer.parseInt(answerHead.substring(9, 12)), answerHead,
                    new String(answerBody, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body of a chunked answer without its chunk sizes. */
    private static byte[] unchunk(byte[] chunked) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] lineEnd = "\r\n".getBytes(StandardCharsets.US_ASCII);
        int at = 0;
        while (at < chunked.length) {
            int end = indexOf(chunked, lineEnd, at);
            int size = Integer.parseInt(new String(chunked, at, end - at, StandardCharsets.US_ASCII).trim(), 16);
            if (size == 0) {
                break;
            }
            body.write(chunked, end + 2, size);
            at = end + 2 + size + 2;
        }
        return body.toByteArray();
    }

    private static int indexOf(byte[] bytes, byte[] part, int from) {
        for (int i = from; i <= bytes.length - part.length; i++) {
            if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            int read;
            while ((read = in.read(buffer)) != -1) {
                bytes.write(buffer, 0, read);
            }
        } catch (java.net.SocketException e) {
            // A reset after the answer was sent: keep what arrived.
        }
        return bytes.toByteArray();
    }
}

package dev.verificationservice.testsupport.dynamodb.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proxy's HTTP/1.1 handling against a scripted engine, for what dynalite never sends: chunked and
 * close-delimited answers, answers to {@code Expect: 100-continue}, and header spellings it must not change.
 */
@Timeout(20)
class DynamoDbFaultProxyHttpTest {

    private ScriptedEngine engine;
    private DynamoDbFaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        engine = new ScriptedEngine();
        proxy = DynamoDbFaultProxy.start(engine.endpoint());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        engine.close();
    }

    @Test
    void aChunkedAnswerArrivesWholeWithAContentLengthAndItsOtherHeadersUnchanged() throws Exception {
        engine.answer("HTTP/1.1 200 OK\r\nX-Spelled-So: Keep Me\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: dropped\r\n\r\n");

        HttpResponse<String> response = send(HttpClient.newHttpClient(), "{\"chunked\":true}", false);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("hello world");
        assertThat(response.headers().firstValue("content-length")).contains("11");
        assertThat(response.headers().firstValue("transfer-encoding")).isEmpty();
        assertThat(response.headers().firstValue("x-spelled-so")).contains("Keep Me");
        assertThat(engine.request().body()).isEqualTo("{\"chunked\":true}");
        assertThat(proxy.operations()).containsExactly("Scripted");
    }

    @Test
    void anAnswerEndedByClosingTheConnectionArrivesWithAContentLength() throws Exception {
        engine.answer("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbye, then close");

        HttpResponse<String> response = send(HttpClient.newHttpClient(), "{}", false);

        assertThat(response.body()).isEqualTo("bye, then close");
        assertThat(response.headers().firstValue("content-length")).contains("15");
    }

    @Test
    void theProxyAnswersExpectContinueAndForwardsTheBodyWithoutTheExpectation() throws Exception {
        engine.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");

        HttpResponse<String> response = send(HttpClient.newHttpClient(), "{\"large\":\"enough\"}", true);

        assertThat(response.body()).isEqualTo("{}");
        ScriptedEngine.Request request = engine.request();
        assertThat(request.body()).isEqualTo("{\"large\":\"enough\"}");
        assertThat(request.headLines()).noneMatch(line -> line.toLowerCase(Locale.ROOT).startsWith("expect:"));
    }

    @Test
    void headerLinesPassBothWaysAsSpelledOnOneKeptAliveConnection() throws Exception {
        engine.answer("HTTP/1.1 200 OK\r\nx-amz-crc32: 2745614147\r\nContent-Length: 2\r\n\r\n{}");
        engine.answer("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        String request = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n"
                + "x-MiXeD-Case: Value  With  Spaces\r\nContent-Length: 2\r\n\r\n{}";

        try (Socket client = new Socket(proxy.endpoint().getHost(), proxy.endpoint().getPort())) {
            client.setSoTimeout(5_000);
            OutputStream out = client.getOutputStream();
            out.write((request + request).getBytes(StandardCharsets.ISO_8859_1)); // pipelined: two in a row
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.ISO_8859_1));

            assertThat(readHead(in)).containsExactly("HTTP/1.1 200 OK", "x-amz-crc32: 2745614147", "Content-Length: 2");
            assertThat((char) in.read()).isEqualTo('{');
            assertThat((char) in.read()).isEqualTo('}');
            assertThat(readHead(in)).containsExactly("HTTP/1.1 400 Bad Request", "Content-Length: 0");
        }
        assertThat(engine.request().headLines()).contains("x-MiXeD-Case: Value  With  Spaces",
                "X-Amz-Target: DynamoDB_20120810.GetItem");
        assertThat(proxy.operations()).containsExactly("GetItem", "GetItem");
        assertThat(proxy.acceptedConnections()).isEqualTo(1);
    }

    private HttpResponse<String> send(HttpClient client, String body, boolean expectContinue) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(proxy.endpoint())
                .version(HttpClient.Version.HTTP_1_1)
                .timeout(Duration.ofSeconds(5))
                .header("X-Amz-Target", "DynamoDB_20120810.Scripted")
                .header("Content-Type", "application/x-amz-json-1.0")
                .expectContinue(expectContinue)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        // The request timeout ends at the answer's head; a body that never ends would hang send().
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).get(5, TimeUnit.SECONDS);
    }

    private static List<String> readHead(BufferedReader in) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            lines.add(line);
        }
        return lines;
    }

    /**
     * An engine that gives the queued answers, byte for byte, one per request in order, and keeps what it
     * received. It closes a connection after an answer that says {@code Connection: close}.
     */
    private static final class ScriptedEngine implements AutoCloseable {
        record Request(List<String> headLines, String body) {
        }

        private final ServerSocket server;
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        private final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();

        ScriptedEngine() throws IOException {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread acceptor = new Thread(this::accept, "scripted-engine");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        void answer(String rawAnswer) {
            answers.add(rawAnswer);
        }

        /** The next request the engine received, waiting for it briefly. */
        Request request() throws InterruptedException {
            Request request = requests.poll(5, TimeUnit.SECONDS);
            assertThat(request).as("a request reached the engine").isNotNull();
            return request;
        }

        private void accept() {
            while (true) {
                try {
                    Socket socket = server.accept();
                    Thread connection = new Thread(() -> serve(socket), "scripted-engine-connection");
                    connection.setDaemon(true);
                    connection.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket socket) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                while (true) {
                    List<String> head = new ArrayList<>();
                    for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                        head.add(line);
                    }
                    int length = head.stream().filter(line -> line.toLowerCase(Locale.ROOT).startsWith("content-length:"))
                            .map(line -> Integer.parseInt(line.substring(line.indexOf(':') + 1).trim())).findFirst().orElse(0);
                    requests.add(new Request(head, new String(in.readNBytes(length), StandardCharsets.UTF_8)));
                    String answer = answers.poll(5, TimeUnit.SECONDS);
                    if (answer == null) {
                        return;
                    }
                    out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    if (answer.toLowerCase(Locale.ROOT).contains("connection: close")) {
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the proxy closed the connection, or the test ended
            }
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("connection closed");
                }
                if (b != '\r') {
                    line.append((char) b);
                }
            }
            return line.toString();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}

package dev.verificationservice.server.openapi;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * A validating proxy, as one would put in front of the service: it forwards every request to the service as it
 * came and the answer back as it went, and checks both against the service's own OpenAPI document
 * ({@link ApiContract}).
 */
public final class ValidatingProxy implements AutoCloseable {

    /** Headers the JDK client sets itself (or refuses), and hop-by-hop headers a proxy does not pass on. */
    private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "content-length", "expect",
            "upgrade", "transfer-encoding", "keep-alive");

    private final HttpServer server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();
    private final String upstream;
    private final ApiContract contract;

    private ValidatingProxy(int upstreamPort, ApiContract contract) throws IOException {
        this.upstream = "http://127.0.0.1:" + upstreamPort;
        this.contract = contract;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::forward);
        server.start();
    }

    /** A proxy in front of the service on this port, checking against the document the service serves now. */
    public static ValidatingProxy start(int upstreamPort) throws IOException, InterruptedException {
        return new ValidatingProxy(upstreamPort, ApiContract.of(upstreamPort));
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public ApiContract contract() {
        return contract;
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            byte[] body = exchange.getRequestBody().readAllBytes();
            HttpRequest.Builder outgoing = HttpRequest.newBuilder(URI.create(upstream + target))
                    .timeout(Duration.ofSeconds(30))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                    values.forEach(value -> outgoing.header(name, value));
                }
            });
            HttpResponse<byte[]> answer = client.send(outgoing.build(), HttpResponse.BodyHandlers.ofByteArray());
            answer.headers().map().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] answerBody = answer.body();
            // Checked before the answer goes back: when the client has it, the exchange is on record.
            contract.check(method, target, exchange.getRequestHeaders(), body, answer.statusCode(),
                    answer.headers().map(), answerBody);
            exchange.sendResponseHeaders(answer.statusCode(), answerBody.length == 0 ? -1 : answerBody.length);
            if (answerBody.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answerBody);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

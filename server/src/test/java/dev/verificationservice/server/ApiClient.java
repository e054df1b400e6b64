package dev.verificationservice.server;

import dev.verificationservice.server.openapi.ApiContract;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Talks to the server through its real HTTP port, as any client would. */
final class ApiClient {

    /** One answer: status, headers and the body parsed as JSON (or null when it is not JSON). */
    record Answer(int status, HttpResponse<String> raw, JsonNode json) {
        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        String text(String field) {
            JsonNode node = json.get(field);
            return node == null || node.isNull() ? null : node.asString();
        }
    }

    static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String apiKey;
    /** Where every exchange is checked against the OpenAPI document; null for none. */
    private final ApiContract contract;

    ApiClient(int port, String apiKey) {
        this(port, apiKey, null);
    }

    ApiClient(int port, String apiKey, ApiContract contract) {
        this.base = "http://127.0.0.1:" + port;
        this.apiKey = apiKey;
        this.contract = contract;
    }

    ApiClient withKey(String key) {
        return new ApiClient(Integer.parseInt(base.substring(base.lastIndexOf(':') + 1)), key, contract);
    }

    Answer get(String path) {
        return send(request(path).GET(), null);
    }

    Answer delete(String path) {
        return send(request(path).DELETE(), null);
    }

    Answer post(String path, Object body) {
        String text = body instanceof String raw ? raw : JSON.writeValueAsString(body);
        return send(request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(text)),
                text);
    }

    /** A JSON POST with an {@code Idempotency-Key}. */
    Answer postIdempotent(String path, Object body, String idempotencyKey) {
        String text = body instanceof String raw ? raw : JSON.writeValueAsString(body);
        return send(request(path).header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(text)), text);
    }

    Answer send(String method, String path, String contentType, String body) {
        HttpRequest.Builder request = request(path).method(method, body == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return send(request, body);
    }

    /**
     * Sends one request exactly as written, over a plain socket, for what {@link java.net.URI} refuses to
     * build (a malformed percent-escape); answers the status line's code and the body.
     */
    String[] raw(String method, String pathAndQuery, String extraHeaders) {
        int port = Integer.parseInt(base.substring(base.lastIndexOf(':') + 1));
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            String request = method + " " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (apiKey == null ? "" : "Authorization: Bearer " + apiKey + "\r\n") + extraHeaders + "\r\n";
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            String status = response.substring(9, 12);
            return new String[] {status, response};
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return request;
    }

    private Answer send(HttpRequest.Builder builder, String body) {
        try {
            HttpRequest request = builder.build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (contract != null) {
                URI uri = request.uri();
                contract.check(request.method(), uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()),
                        request.headers().map(), body == null ? null : body.getBytes(StandardCharsets.UTF_8),
                        response.statusCode(), response.headers().map(), response.body().getBytes(StandardCharsets.UTF_8));
            }
            JsonNode json = null;
            String type = response.headers().firstValue("Content-Type").orElse("");
            if (type.contains("json") && !response.body().isEmpty()) {
                json = JSON.readTree(response.body());
            }
            return new Answer(response.statusCode(), response, json);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

package dev.verificationservice.server.fuzz;

import dev.verificationservice.server.fuzz.FuzzRequest.Header;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPOutputStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * How a generated request goes on the wire, as jqwik arbitraries: the spelling of its {@code Authorization}
 * header, its {@code Content-Type} (malformed ones too: multipart without a boundary, unknown or conflicting
 * charsets), its encodings ({@code Content-Encoding}, chunked transfer), an {@code Idempotency-Key} (valid,
 * repeated, malformed, duplicated) and an oversized body. Each is one named change (the name is what jqwik
 * prints), and "as generated" is the most frequent, so that most requests still reach the controllers.
 */
record Wire(String name, UnaryOperator<FuzzRequest> change) {

    private static final Wire AS_GENERATED = new Wire("as generated", UnaryOperator.identity());
    /** A few keys used again and again: replays, and the same key with another body (422). */
    private static final List<String> REPEATED_KEYS = List.of("order-1", "order-2", "7f9c2ba4-e88f-4a1b-9d3c-0f1e2d3c4b5a");

    @Override
    public String toString() {
        return name;
    }

    FuzzRequest apply(FuzzRequest request) {
        return change.apply(request);
    }

    static Arbitrary<Wire> authorization() {
        return mostlyAsGenerated(Arbitraries.of(
                authorization("scheme in lower case: bearer", value -> "bearer" + value.substring(6)),
                authorization("scheme in upper case: BEARER", value -> "BEARER" + value.substring(6)),
                authorization("two spaces after Bearer", value -> "Bearer  " + value.substring(7)),
                authorization("a space before Bearer", value -> " " + value),
                authorization("spaces after the key", value -> value + "   "),
                authorization("a tab after Bearer", value -> "Bearer\t" + value.substring(7)),
                authorization("no space after Bearer", value -> "Bearer" + value.substring(7)),
                authorization("the key twice in one header", value -> value + ", " + value),
                new Wire("header name in lower case: authorization", request -> renamed(request, "Authorization",
                        "authorization")),
                new Wire("header name in upper case: AUTHORIZATION", request -> renamed(request, "Authorization",
                        "AUTHORIZATION")),
                new Wire("Authorization twice, the same", request -> duplicated(request, "Authorization", null)),
                new Wire("Authorization twice, a wrong one after", request -> duplicated(request, "Authorization",
                        "Bearer wrong-key"))));
    }

    static Arbitrary<Wire> contentType() {
        return mostlyAsGenerated(Arbitraries.of(List.of(
                "multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"",
                "multipart/form-data;", "multipart/mixed; boundary=x", "multipart/form-data; charset=utf-8",
                "application/x-www-form-urlencoded; charset=utf-8", "application/json; charset=UTF-16",
                "application/json; charset=latin1", "application/json; charset=utf-7", "application/json; charset=",
                "application/json; charset=\"", "application/json; charset=x-unknown-42",
                "application/json; charset=UTF-8; charset=UTF-16", "application/json ; charset = utf-8",
                "Application/JSON", "application/json;;;", "application/json; boundary=x", "application/*+json",
                "application/json, multipart/form-data", "*/*").stream().map(Wire::contentType).toList()));
    }

    static Arbitrary<Wire> encoding() {
        return mostlyAsGenerated(Arbitraries.of(
                new Wire("chunked", request -> request.body() == null ? request : chunked(request)),
                header("Content-Encoding: gzip (body not compressed)", "Content-Encoding", "gzip"),
                new Wire("Content-Encoding: gzip (body compressed)", Wire::gzipped),
                header("Content-Encoding: br", "Content-Encoding", "br"),
                header("Content-Encoding: identity", "Content-Encoding", "identity"),
                header("Content-Encoding: gzip, gzip", "Content-Encoding", "gzip, gzip"),
                new Wire("body in UTF-16 with its charset", request -> inCharset(request, "UTF-16")),
                new Wire("body in UTF-16 labelled UTF-8", request -> reencoded(request, "UTF-16"))));
    }

    static Arbitrary<Wire> idempotencyKey() {
        Arbitrary<Wire> valid = Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255)
                .map(key -> header("Idempotency-Key: a new key", "Idempotency-Key", key));
        Arbitrary<Wire> repeated = Arbitraries.of(REPEATED_KEYS)
                .map(key -> header("Idempotency-Key: " + key, "Idempotency-Key", key));
        Arbitrary<Wire> malformed = Arbitraries.of(
                header("Idempotency-Key: empty", "Idempotency-Key", ""),
                header("Idempotency-Key: a space", "Idempotency-Key", "a b"),
                header("Idempotency-Key: 256 characters", "Idempotency-Key", "k".repeat(256)),
                header("Idempotency-Key: not ASCII", "Idempotency-Key", "ключ-\u00e9"),
                header("Idempotency-Key: a control character", "Idempotency-Key", "a\u0001b"),
                header("Idempotency-Key: a bidi override", "Idempotency-Key", "a\u202eb"),
                new Wire("Idempotency-Key twice", request -> duplicated(withHeader(request, "Idempotency-Key",
                        REPEATED_KEYS.get(0)), "Idempotency-Key", "other-key")),
                new Wire("idempotency-key in lower case", request -> withHeader(request, "idempotency-key",
                        REPEATED_KEYS.get(1))));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(60, Arbitraries.just(AS_GENERATED)),
                net.jqwik.api.Tuple.of(15, valid),
                net.jqwik.api.Tuple.of(15, repeated),
                net.jqwik.api.Tuple.of(10, malformed));
    }

    /** A body over the 16 KB limit, sent with a Content-Length or chunked (the limit is checked while reading). */
    static Arbitrary<Wire> oversized() {
        return mostlyAsGenerated(Arbitraries.of(16_385, 20_000, 70_000).flatMap(size -> Arbitraries.of(false, true)
                .map(chunked -> new Wire("body of " + size + " bytes" + (chunked ? ", chunked" : ""),
                        request -> oversized(request, size, chunked)))));
    }

    private static Arbitrary<Wire> mostlyAsGenerated(Arbitrary<Wire> changes) {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(80, Arbitraries.just(AS_GENERATED)),
                net.jqwik.api.Tuple.of(20, changes));
    }

    // ---------------------------------------------------------------- the changes

    private static Wire authorization(String name, UnaryOperator<String> spelling) {
        return new Wire("Authorization: " + name, request -> {
            List<Header> headers = new ArrayList<>();
            for (Header header : request.headers()) {
                boolean bearer = header.name().equalsIgnoreCase("Authorization") && header.value().startsWith("Bearer ");
                headers.add(bearer ? new Header(header.name(), spelling.apply(header.value())) : header);
            }
            return request.withHeaders(headers).withKind(name);
        });
    }

    private static Wire contentType(String value) {
        return new Wire("Content-Type: " + value, request -> request.body() == null ? request
                : withHeader(request, "Content-Type", value));
    }

    private static Wire header(String name, String header, String value) {
        return new Wire(name, request -> withHeader(request, header, value));
    }

    static FuzzRequest withHeader(FuzzRequest request, String name, String value) {
        List<Header> headers = new ArrayList<>(request.headers());
        headers.removeIf(header -> header.name().equalsIgnoreCase(name));
        headers.add(new Header(name, value));
        return request.withHeaders(headers).withKind(name.toUpperCase(Locale.ROOT));
    }

    private static FuzzRequest renamed(FuzzRequest request, String from, String to) {
        return request.withHeaders(request.headers().stream()
                .map(header -> header.name().equals(from) ? new Header(to, header.value()) : header).toList())
                .withKind("HEADER_NAME");
    }

    /** The header once more, with the same value (null) or another one. */
    private static FuzzRequest duplicated(FuzzRequest request, String name, String other) {
        List<Header> headers = new ArrayList<>(request.headers());
        request.headers().stream().filter(header -> header.name().equalsIgnoreCase(name)).findFirst()
                .ifPresent(first -> headers.add(new Header(first.name(), other == null ? first.value() : other)));
        return request.withHeaders(headers).withKind("DUPLICATE_HEADER");
    }

    private static FuzzRequest chunked(FuzzRequest request) {
        return new FuzzRequest(request.operation(), request.kinds(), request.method(), request.target(),
                request.headers(), request.body(), true).withKind("CHUNKED");
    }

    private static FuzzRequest gzipped(FuzzRequest request) {
        byte[] body = request.bodyBytes();
        if (body == null) {
            return request;
        }
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
            gzip.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return withHeader(request.withBody(new FuzzRequest.Raw(compressed.toByteArray())), "Content-Encoding", "gzip");
    }

    private static FuzzRequest inCharset(FuzzRequest request, String charset) {
        return request.body() == null ? request
                : withHeader(reencoded(request, charset), "Content-Type", "application/json; charset=" + charset);
    }

    private static FuzzRequest reencoded(FuzzRequest request, String charset) {
        byte[] body = request.bodyBytes();
        if (body == null) {
            return request;
        }
        String text = new String(body, StandardCharsets.UTF_8);
        return request.withBody(new FuzzRequest.Raw(text.getBytes(java.nio.charset.Charset.forName(charset))))
                .withKind("CHARSET");
    }

    private static FuzzRequest oversized(FuzzRequest request, int size, boolean chunked) {
        // The generated members (if any), then one padding member that brings the body to the size.
        String members = request.body() instanceof FuzzRequest.Members generated && !generated.members().isEmpty()
                ? new String(generated.bytes(), 1, generated.bytes().length - 2, StandardCharsets.UTF_8) + "," : "";
        String head = "{" + members + "\"padding\":\"";
        String padded = head + "a".repeat(Math.max(0, size - head.getBytes(StandardCharsets.UTF_8).length - 2)) + "\"}";
        FuzzRequest bigger = request.withBody(new FuzzRequest.Raw(padded.getBytes(StandardCharsets.UTF_8)));
        return (chunked ? chunked(bigger) : bigger).withKind("OVERSIZED");
    }
}

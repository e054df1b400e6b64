package dev.verificationservice.server.fuzz;

import dev.verificationservice.server.fuzz.OpenApiDocument.Operation;
import dev.verificationservice.server.fuzz.Oracle.Violation;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * Property-based fuzzing of the HTTP API (jqwik), from the service's own OpenAPI document
 * ({@code GET /v3/api-docs}): every operation it lists gets valid requests built from its parameters, body schemas
 * (required fields, enums, formats, patterns, lengths) and security, and the same requests broken in every way a
 * client or an attacker could ({@link RequestFactory}: wrong JSON types, null, huge strings around the 16 KB limit,
 * deep nesting, duplicate keys, invalid UTF-8, control and bidi characters, unknown enum values, missing and extra
 * fields, malformed and empty bodies, odd path parameters and query strings, other methods and paths), sent in
 * every way the wire allows ({@link Wire}: Authorization spellings such as {@code bearer}, extra spaces and
 * duplicated headers; malformed Content-Types such as multipart without a boundary and bad charsets; gzip,
 * UTF-16 and chunked bodies; valid, repeated and malformed Idempotency-Keys; oversized bodies). An endpoint added
 * to the document is fuzzed without changing this test. Each store has its subclass: the embedded store (a real
 * SQLite file) and DynamoDB (dynalite).
 *
 * <p>The properties, for every request ({@link FuzzServer#execute}, {@link Oracle}): no 5xx (the store is healthy
 * and the development outbox delivers: nothing may fail); every 4xx an {@code application/problem+json} with
 * {@code type}, {@code title}, {@code status} (the HTTP status) and {@code code}; every answer to a path and method
 * of the document matches the document (its status is documented for the operation, its headers and body match:
 * {@code ApiContract}); and after a refused request (400, 401, 403, 404, 405, 406, 413, 415, 422) the store
 * exactly as it was, read straight from the SQLite file or by a Scan of the table, also until the next request.
 *
 * <p><b>Replaying a failure.</b> jqwik prints the seed of every run ({@code seed = ...} in its report) and, for a
 * failure, the original and the shrunk sample (each request as sent, the keys masked). Rerun the failing class
 * and jqwik replays the failing sample first and then the same seed (its {@code .jqwik-database}, after-failure mode
 * {@code SAMPLE_FIRST}); to replay a seed from a CI log, set it on the property: {@code @Property(seed = "...")}.
 * The answers feed back into later requests (codes from the outbox, device secrets, cursors), so a replay takes the
 * same decisions but sees other random codes; the clock moves every 250 requests. Requests are sent one at a time.
 */
abstract class ApiFuzzTest {

    private FuzzServer server;

    /** The store this class fuzzes on. */
    abstract FuzzServer.Store store();

    private FuzzServer server() throws Exception {
        if (server == null) {
            server = new FuzzServer(store());
        }
        return server;
    }

    @Provide
    Arbitrary<FuzzRequest> requests() throws Exception {
        List<Operation> operations = server().operations();
        FuzzServer fuzzed = server;
        Arbitrary<FuzzRequest> generated = Arbitraries.of(operations).flatMap(operation -> Arbitraries.randomValue(
                random -> fuzzed.factory(random).next(operation)));
        return Combinators.combine(generated, Wire.authorization(), Wire.contentType(), Wire.encoding(),
                Wire.idempotencyKey(), Wire.oversized())
                .as((request, authorization, contentType, encoding, idempotencyKey, oversized) -> oversized.apply(
                        idempotencyKey.apply(encoding.apply(contentType.apply(authorization.apply(request))))));
    }

    /** The property: the answer keeps the contract and, for a refusal, the store is unchanged. */
    void answersWithinTheContract(FuzzRequest request) throws Exception {
        List<Violation> violations = server().execute(request);
        if (!violations.isEmpty()) {
            throw new AssertionError(violations.stream().map(Violation::toString).collect(Collectors.joining("\n"))
                    + "\nrequest:" + request);
        }
    }

    @AfterProperty
    void stop() throws Exception {
        if (server != null) {
            System.out.println(server.summary());
            server.close();
            server = null;
        }
    }
}

/**
 * A Java client for the Verification Service's HTTP API ({@code /v1} and the development outbox), written by
 * hand on the JDK's {@link java.net.http.HttpClient} and Jackson, with no other dependency.
 *
 * <p>Start with {@link dev.verificationservice.client.VerificationClient#builder()}. The API follows the
 * service's own library: typed requests ({@link dev.verificationservice.client.SendCodeRequest},
 * {@link dev.verificationservice.client.PresentedCode}, {@link dev.verificationservice.client.DeviceRegistration},
 * {@link dev.verificationservice.client.AuditQuery}), sealed results for the calls with several expected
 * outcomes ({@link dev.verificationservice.client.SendResult}, {@link dev.verificationservice.client.CheckResult},
 * {@link dev.verificationservice.client.VerifyResult}, {@link dev.verificationservice.client.DeviceVerifyResult}),
 * and exceptions for everything else: RFC 9457 problem details become
 * {@link dev.verificationservice.client.ProblemException} and its subtypes
 * ({@link dev.verificationservice.client.InvalidInputException} names the field), an unreachable or slow
 * service a {@link dev.verificationservice.client.TransportException}.
 *
 * <h2>Why hand-written, not generated from the OpenAPI document</h2>
 * The service publishes an OpenAPI document ({@code /v3/api-docs}), and openapi-generator could make a client
 * from it. It would be a poorer one: the document describes each answer as a flat object whose fields are all
 * optional ({@code valid}, {@code reason?}, {@code userId?} ...), so a generated {@code verify} returns a bean
 * on which the caller must know which fields go with which outcome, where this client returns
 * {@code VerifyResult.Valid} or {@code VerifyResult.Invalid(reason)}. A rate-limited or undeliverable send is
 * an expected outcome of {@code POST /v1/codes} (429, 502) and is a {@link dev.verificationservice.client.SendResult}
 * here, not a generic API exception carrying a status code; problem details become typed exceptions with their
 * {@code field} and {@code Retry-After}; and the retry rules (which calls may be repeated after a 503) are
 * knowledge about the service that no document carries. Generated code would also bring the generator's own
 * support classes and annotations. The API is small (eleven calls), so writing it by hand costs little, and
 * the tests run every call against the real server, so it cannot drift unnoticed.
 *
 * <h2>Retries</h2>
 * A 503 answer ({@link dev.verificationservice.client.ServiceUnavailableException}; from the service's store:
 * {@link dev.verificationservice.client.StoreUnavailableException}) is retried after its {@code Retry-After}
 * only for the calls that are safe to repeat ({@link dev.verificationservice.client.Operation#safeToRetry()}):
 * the reads and {@code check}. Sending a code, verifying one, registering or verifying a device and revoking
 * are never repeated unless the caller opts in per operation with
 * {@link dev.verificationservice.client.RetryPolicy.Builder#alsoRetry}: a 503 does not prove that nothing
 * happened, and a repeated send may deliver a second message, a repeated verify may answer {@code USED} for the
 * code the first attempt consumed. A 429 is never retried: it is the answer
 * ({@link dev.verificationservice.client.SendResult.RateLimited} with its {@code retryAfter}). See
 * {@link dev.verificationservice.client.RetryPolicy}.
 *
 * <p>Every type of this package is immutable and thread-safe; one client serves the whole application.
 */
package dev.verificationservice.client;

package dev.verificationservice.events;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Sends one signed request; {@link JdkWebhookTransport} in production, the same in tests against real receivers. */
@FunctionalInterface
public interface WebhookTransport {

    /**
     * POSTs {@code body} with {@code headers}, holding no thread while the receiver takes its time: a hanging
     * receiver must cost the relay a slot of its own endpoint, never a worker. The answer never completes
     * exceptionally: a receiver's failure, or no answer within {@code timeout}, is a {@link NoAnswer}.
     */
    CompletableFuture<Response> send(URI url, Map<String, String> headers, byte[] body, Duration timeout);

    /** {@link #send}, waiting for the answer. */
    default Response post(URI url, Map<String, String> headers, byte[] body, Duration timeout) {
        return send(url, headers, body, timeout).join();
    }

    /** What came back. */
    sealed interface Response permits Answered, NoAnswer {
    }

    /** An HTTP status arrived. */
    record Answered(int status) implements Response {
    }

    /** Nothing arrived in time, or the connection failed; {@code why} names which, without any secret. */
    record NoAnswer(String why) implements Response {
    }
}

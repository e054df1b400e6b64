package dev.verificationservice.events;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/** Sends one signed request; {@link JdkWebhookTransport} in production, the same in tests against real receivers. */
@FunctionalInterface
public interface WebhookTransport {

    /** POSTs {@code body} with {@code headers}; never throws for a receiver's failure, it answers {@link NoAnswer}. */
    Response post(URI url, Map<String, String> headers, byte[] body, Duration timeout);

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

package dev.verificationservice.events;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The JDK's {@link HttpClient}: redirects are not followed (a redirect could lead past the address check), and the
 * whole exchange, body included, must finish within the timeout: the request timeout alone ends at the response
 * headers, so a receiver that trickles its body would hold its slot forever. No thread waits for the answer. The
 * client is built by the first request: building it starts a selector thread and initialises TLS (the trust store
 * read and parsed), which a service start would otherwise pay for before its first readiness answer, with or
 * without a webhook due.
 */
public final class JdkWebhookTransport implements WebhookTransport {

    private volatile HttpClient client;

    private HttpClient client() {
        HttpClient built = client;
        if (built == null) {
            synchronized (this) {
                built = client;
                if (built == null) {
                    built = HttpClient.newBuilder()
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .connectTimeout(RetrySchedule.TIMEOUT)
                            .build();
                    client = built;
                }
            }
        }
        return built;
    }

    @Override
    public CompletableFuture<Response> send(URI url, Map<String, String> headers, byte[] body, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        CompletableFuture<HttpResponse<Void>> exchange;
        try {
            exchange = client().sendAsync(request.build(), HttpResponse.BodyHandlers.discarding());
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(new NoAnswer("the request failed: " + e.getClass().getSimpleName()));
        }
        // A copy carries the deadline, so that the exchange itself is cancelled (its connection closed) at it.
        return exchange.copy().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).handle((response, failure) -> {
            if (failure == null) {
                return new Answered(response.statusCode());
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof TimeoutException) {
                exchange.cancel(true);
                return new NoAnswer("no answer within " + timeout.toSeconds() + " s");
            }
            return new NoAnswer("the request failed: " + cause.getClass().getSimpleName());
        });
    }
}

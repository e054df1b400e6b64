package dev.verificationservice.events;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The JDK's {@link HttpClient}: redirects are not followed (a redirect could lead past the address check), and the
 * whole exchange, body included, must finish within the timeout: the request timeout alone ends at the response
 * headers, so a receiver that trickles its body would hold a worker forever. The client is built by the first
 * request: building it starts a selector thread and initialises TLS (the trust store read and parsed), which a
 * service start would otherwise pay for before its first readiness answer, with or without a webhook due.
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
    public Response post(URI url, Map<String, String> headers, byte[] body, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        CompletableFuture<HttpResponse<Void>> exchange =
                client().sendAsync(request.build(), HttpResponse.BodyHandlers.discarding());
        try {
            return new Answered(exchange.get(timeout.toMillis(), TimeUnit.MILLISECONDS).statusCode());
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return new NoAnswer("no answer within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return new NoAnswer("the request failed: " + cause.getClass().getSimpleName());
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            return new NoAnswer("the relay was stopped during the request");
        }
    }
}

package dev.verificationservice.delivery.sms;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.delivery.messages.MessageRenderer;
import dev.verificationservice.delivery.messages.SmsSegments;
import dev.verificationservice.time.Instants;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import tools.jackson.databind.json.JsonMapper;

/**
 * SMS codes through an HTTPS webhook of the operator's own (which then talks to any SMS provider). The
 * request is a JSON body {@code {to, message, codeType, expiresAt}} with two headers:
 * {@value #TIMESTAMP_HEADER} (Unix seconds) and {@value #SIGNATURE_HEADER}: {@code sha256=} and the hex
 * HMAC-SHA-256, under the shared webhook secret, of {@code <timestamp>.<body>}. The receiver recomputes it,
 * compares in constant time and refuses old timestamps. Any answer but 2xx, or a timeout, is a failed
 * delivery.
 */
public final class WebhookSmsSender implements CodeSender {

    public static final String SIGNATURE_HEADER = "X-Verification-Signature";
    public static final String TIMESTAMP_HEADER = "X-Verification-Timestamp";

    private final URI url;
    private final byte[] secret;
    private final Duration timeout;
    private final HttpClient http;
    private final MessageRenderer renderer;
    private final Clock clock;
    private final JsonMapper json = JsonMapper.builder().build();
    private final Consumer<SmsSegments> sent;

    /**
     * @param sent told the segments of every message the webhook accepted (for the segment metric)
     */
    public WebhookSmsSender(URI url, String secret, Duration timeout, MessageRenderer renderer, Clock clock,
                            Consumer<SmsSegments> sent) {
        this.sent = sent;
        this.url = url;
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
        this.timeout = timeout;
        this.renderer = renderer;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    @Override
    public void send(OutgoingCode message) throws DeliveryException {
        Map<String, String> payload = new LinkedHashMap<>();
        payload.put("to", message.deliveryTarget());
        MessageRenderer.RenderedSms sms = renderer.renderSms(message);
        payload.put("message", sms.body());
        payload.put("codeType", message.codeType().name());
        payload.put("expiresAt", Instants.iso(message.expiresAt()));
        String body = json.writeValueAsString(payload);
        String timestamp = Long.toString(clock.instant().getEpochSecond());
        HttpRequest request = HttpRequest.newBuilder(url)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header(TIMESTAMP_HEADER, timestamp)
                .header(SIGNATURE_HEADER, "sha256=" + sign(secret, timestamp + "." + body))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        try {
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            if (response.statusCode() / 100 != 2) {
                throw new DeliveryException("the SMS webhook answered HTTP " + response.statusCode());
            }
            sent.accept(sms.segments());
        } catch (IOException e) {
            throw new DeliveryException("the SMS webhook could not be reached (" + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeliveryException("interrupted while calling the SMS webhook", e);
        }
    }

    /** Hex HMAC-SHA-256 of {@code content}: what a receiver recomputes to check a request. */
    public static String sign(byte[] secret, String content) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(content.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is not available", e);
        }
    }
}

package dev.verificationservice.events;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks 1.0 signing: {@code v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">} under each secret's
 * key bytes; during a rotation both the new and the old secret sign, space separated, so a receiver that still holds
 * the old one keeps verifying until it switches.
 */
public final class WebhookSignatures {

    private WebhookSignatures() {
    }

    /** The {@code webhook-signature} header value for the secrets, current first. */
    public static String header(List<WebhookSecret> secrets, String eventId, long timestampSeconds, byte[] body) {
        return secrets.stream().map(secret -> "v1," + sign(secret, eventId, timestampSeconds, body))
                .collect(Collectors.joining(" "));
    }

    static String sign(WebhookSecret secret, String eventId, long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.keyBytes(), "HmacSHA256"));
            mac.update((eventId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java 17 runtime", e);
        }
    }
}

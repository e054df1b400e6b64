package dev.verificationservice.testsupport.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A receiver's check of a webhook, written from the Standard Webhooks 1.0 specification and nothing of the service:
 * the secret is {@code whsec_} and the base64 of the key; the signed content is {@code id.timestamp.body}; the
 * {@code webhook-signature} header is a space-separated list of {@code v1,<base64 HMAC-SHA256>}, any one of which may
 * match; the timestamp must be within a tolerance of the receiver's clock (five minutes, as the spec suggests), so an
 * old request replayed later is refused.
 */
public final class StandardWebhooksVerifier {

    public static final Duration TOLERANCE = Duration.ofMinutes(5);

    private final byte[] key;

    public StandardWebhooksVerifier(String secret) {
        if (!secret.startsWith("whsec_")) {
            throw new IllegalArgumentException("a Standard Webhooks secret starts with whsec_");
        }
        this.key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
    }

    /** Whether one of the header's signatures is this secret's over the message, sent within the tolerance of now. */
    public boolean verifies(String id, String timestamp, String signatureHeader, byte[] body, Instant now) {
        long sent = Long.parseLong(timestamp);
        if (Math.abs(now.getEpochSecond() - sent) > TOLERANCE.toSeconds()) {
            return false;
        }
        byte[] expected = expected(id, timestamp, body);
        for (String signature : signatureHeader.split(" ")) {
            int comma = signature.indexOf(',');
            if (comma > 0 && signature.substring(0, comma).equals("v1")
                    && MessageDigest.isEqual(expected, signature.substring(comma + 1).getBytes(StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
    }

    private byte[] expected(String id, String timestamp, byte[] body) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
            byte[] content = new byte[prefix.length + body.length];
            System.arraycopy(prefix, 0, content, 0, prefix.length);
            System.arraycopy(body, 0, content, prefix.length, body.length);
            return Base64.getEncoder().encode(hmac.doFinal(content));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}

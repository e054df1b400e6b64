package dev.verificationservice.testsupport.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * An independent check of Standard Webhooks 1.0 signatures, written from the specification and not from the
 * service's code: the signed content is {@code <webhook-id>.<webhook-timestamp>.<body>}, the key is the base64
 * part of {@code whsec_<base64>}, the signature HMAC-SHA256 in base64 after {@code v1,}, and the header may hold
 * several space-separated signatures, any one of which may match.
 */
public final class StandardWebhooks {

    private StandardWebhooks() {
    }

    /** Whether one of the signatures in the request's {@code webhook-signature} header is the secret's. */
    public static boolean signedWith(String secret, WebhookReceiver.Received request) {
        String header = request.header("webhook-signature");
        if (header == null || !secret.startsWith("whsec_")) {
            return false;
        }
        byte[] expected = sign(secret, request.header("webhook-id"), request.header("webhook-timestamp"),
                request.body());
        for (String signature : header.split(" ")) {
            if (signature.startsWith("v1,") && MessageDigest.isEqual(expected,
                    Base64.getDecoder().decode(signature.substring(3)))) {
                return true;
            }
        }
        return false;
    }

    /** How many signatures the header carries (two during a rotation). */
    public static int signatures(WebhookReceiver.Received request) {
        return request.header("webhook-signature").split(" ").length;
    }

    private static byte[] sign(String secret, String id, String timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())),
                    "HmacSHA256"));
            return mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}

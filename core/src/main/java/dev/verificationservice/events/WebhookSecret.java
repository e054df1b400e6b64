package dev.verificationservice.events;

import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * An endpoint's signing secret in the Standard Webhooks form: {@code whsec_} then the base64 of the key bytes, which
 * are what HMAC-SHA256 is keyed with. Shown once, when made; stored only sealed.
 */
public record WebhookSecret(String text) {

    public static final String PREFIX = "whsec_";
    /** 192 bits: Standard Webhooks asks for 24 to 64 bytes. */
    public static final int KEY_BYTES = 24;

    public WebhookSecret {
        keyBytes(text);
    }

    public static WebhookSecret generate(SecureRandom random) {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        return new WebhookSecret(PREFIX + Base64.getEncoder().encodeToString(key));
    }

    /** The HMAC key: the base64 part decoded. */
    public byte[] keyBytes() {
        return keyBytes(text);
    }

    private static byte[] keyBytes(String text) {
        try {
            if (text != null && text.startsWith(PREFIX)) {
                return Base64.getDecoder().decode(text.substring(PREFIX.length()));
            }
        } catch (IllegalArgumentException e) {
            // falls through to the refusal below
        }
        throw new InvalidInputException("secret", "is not a whsec_ secret");
    }

    /** Never printed: the secret is shown once, by the registration's answer. */
    @Override
    public String toString() {
        return "WebhookSecret[whsec_***]";
    }
}

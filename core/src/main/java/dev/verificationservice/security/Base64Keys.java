package dev.verificationservice.security;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** How configured keys are read: base64, the standard or the URL-safe alphabet, one per entry, current first. */
final class Base64Keys {

    private Base64Keys() {
    }

    /** @param kind what the keys are, for the message that names a bad one ("HMAC key", "encryption key") */
    static List<byte[]> decode(List<String> encodedKeys, String kind) {
        List<byte[]> raw = new ArrayList<>();
        for (int i = 0; i < encodedKeys.size(); i++) {
            String encoded = encodedKeys.get(i).trim();
            try {
                raw.add(encoded.contains("-") || encoded.contains("_")
                        ? Base64.getUrlDecoder().decode(encoded)
                        : Base64.getDecoder().decode(encoded));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(kind + " #" + (i + 1) + " is not valid base64", e);
            }
        }
        return raw;
    }
}

package dev.verificationservice.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server's HMAC-SHA-256 keys, current first. Codes and device secrets are stored only as digests
 * under these keys, so a leaked table yields nothing usable without them.
 *
 * <p>New digests always use the current key; verification computes the digest under every key in order
 * (current, then previous ones), which lets an operator rotate keys without invalidating codes or
 * remembered devices issued under the previous key.
 */
public final class SecretKeyRing {

    /** 256 bits, the HMAC-SHA-256 block-size-appropriate minimum we accept for a server key. */
    public static final int MIN_KEY_BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";
    private static final Base64.Encoder DIGEST_ENCODING = Base64.getUrlEncoder().withoutPadding();

    private final List<SecretKeySpec> keys;
    /**
     * Each thread's Macs, one per key, made and keyed once: a Mac is not thread-safe, and making and keying one
     * for every digest (a provider lookup each time) was a measurable share of a send on the embedded store's
     * writer thread. {@code doFinal} leaves a Mac ready for the next digest under the same key.
     */
    private final ThreadLocal<Mac[]> macs;

    private SecretKeyRing(List<byte[]> rawKeys) {
        if (rawKeys.isEmpty()) {
            throw new IllegalArgumentException("at least one HMAC key is required");
        }
        List<SecretKeySpec> specs = new ArrayList<>();
        for (int i = 0; i < rawKeys.size(); i++) {
            byte[] raw = rawKeys.get(i);
            if (raw.length < MIN_KEY_BYTES) {
                throw new IllegalArgumentException("HMAC key #" + (i + 1) + " has " + raw.length
                        + " bytes; at least " + MIN_KEY_BYTES + " are required");
            }
            int number = i + 1;
            KeyStrength.weaknessOfBytes(raw).ifPresent(weakness -> {
                throw new IllegalArgumentException("HMAC key #" + number + " is not random: " + weakness);
            });
            specs.add(new SecretKeySpec(raw.clone(), ALGORITHM));
        }
        this.keys = List.copyOf(specs);
        this.macs = ThreadLocal.withInitial(() -> new Mac[keys.size()]);
    }

    public static SecretKeyRing ofKeys(List<byte[]> rawKeys) {
        return new SecretKeyRing(rawKeys);
    }

    /**
     * Keys as configured: base64 (standard or URL-safe alphabet), current first, for example the
     * comma-separated value of {@code VERIFICATION_SECRET_KEYS}.
     */
    public static SecretKeyRing fromBase64(List<String> encodedKeys) {
        return new SecretKeyRing(Base64Keys.decode(encodedKeys, "HMAC key"));
    }

    /** A fresh random key, base64-encoded, for first start of the embedded mode and for tests. */
    public static String generateBase64Key(SecureRandom random) {
        byte[] key = new byte[MIN_KEY_BYTES];
        random.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    /** The digest under the current key: what new items are written with. */
    public String currentDigest(String input) {
        return digest(0, input);
    }

    /** The digest under every key, current first: what verification looks up, in this order. */
    public List<String> candidateDigests(String input) {
        List<String> digests = new ArrayList<>(keys.size());
        for (int key = 0; key < keys.size(); key++) {
            digests.add(digest(key, input));
        }
        return digests;
    }

    public int size() {
        return keys.size();
    }

    private String digest(int key, String input) {
        Mac[] threadMacs = macs.get();
        Mac mac = threadMacs[key];
        if (mac == null) {
            mac = newMac(keys.get(key));
            threadMacs[key] = mac;
        }
        return DIGEST_ENCODING.encodeToString(mac.doFinal(input.getBytes(StandardCharsets.UTF_8)));
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is not available in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "SecretKeyRing[" + keys.size() + " key(s), redacted]";
    }
}

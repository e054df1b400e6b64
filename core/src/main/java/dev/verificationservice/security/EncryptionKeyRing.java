package dev.verificationservice.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server's AES-256-GCM keys, current first, for the secrets that must be recoverable (a TOTP secret is needed
 * to compute codes, so it cannot be digested like a code). Configured like {@link SecretKeyRing} (base64, current
 * first) but a ring of its own: an HMAC key never doubles as an encryption key.
 *
 * <p>Every sealing uses the current key and a fresh 96-bit nonce from {@link SecureRandom} (GCM's security rests on
 * a nonce never repeating under one key), and binds {@code associatedData} (the owner's ids) into the tag: a
 * ciphertext copied to another item fails to open. The key id stored with the ciphertext names the key that opens
 * it; a secret sealed under an older key opens as long as that key is in the ring, and is re-sealed under the current
 * one when it is next used.
 */
public final class EncryptionKeyRing {

    /** AES-256. */
    public static final int KEY_BYTES = 32;
    /** GCM's recommended nonce length: 96 bits. */
    public static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** 64 bits of a key's fingerprint name it: enough to tell the keys of one ring apart, nothing about the key. */
    private static final int KEY_ID_BYTES = 8;
    private static final String TRANSFORMATION = "AES/GCM/NoPadding";
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final Map<String, SecretKeySpec> keysById;
    private final String currentKeyId;
    private final SecureRandom random;

    private EncryptionKeyRing(List<byte[]> rawKeys, SecureRandom random) {
        if (rawKeys.isEmpty()) {
            throw new IllegalArgumentException("at least one encryption key is required");
        }
        Map<String, SecretKeySpec> byId = new LinkedHashMap<>();
        for (int i = 0; i < rawKeys.size(); i++) {
            byte[] raw = rawKeys.get(i);
            int number = i + 1;
            if (raw.length != KEY_BYTES) {
                throw new IllegalArgumentException("encryption key #" + number + " has " + raw.length
                        + " bytes; an AES-256 key has exactly " + KEY_BYTES);
            }
            KeyStrength.weaknessOfBytes(raw).ifPresent(weakness -> {
                throw new IllegalArgumentException("encryption key #" + number + " is not random: " + weakness);
            });
            if (byId.putIfAbsent(keyId(raw), new SecretKeySpec(raw.clone(), "AES")) != null) {
                throw new IllegalArgumentException("encryption key #" + number + " is listed twice");
            }
        }
        this.keysById = Map.copyOf(byId);
        this.currentKeyId = byId.keySet().iterator().next();
        this.random = random;
    }

    public static EncryptionKeyRing ofKeys(List<byte[]> rawKeys) {
        return new EncryptionKeyRing(rawKeys, new SecureRandom());
    }

    /**
     * Keys as configured: base64 (standard or URL-safe alphabet), current first, for example the comma-separated
     * value of {@code VERIFICATION_ENCRYPTION_KEYS}.
     */
    public static EncryptionKeyRing fromBase64(List<String> encodedKeys) {
        return new EncryptionKeyRing(Base64Keys.decode(encodedKeys, "encryption key"), new SecureRandom());
    }

    /** A fresh random AES-256 key, base64-encoded, for first start of the embedded mode and for tests. */
    public static String generateBase64Key(SecureRandom random) {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    /** Encrypts under the current key with a fresh nonce, binding {@code associatedData} into the tag. */
    public SealedSecret seal(byte[] plaintext, String associatedData) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, keysById.get(currentKeyId), nonce, associatedData);
            return new SealedSecret(currentKeyId, ENCODER.encodeToString(nonce),
                    ENCODER.encodeToString(cipher.doFinal(plaintext)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available in this JVM", e);
        }
    }

    /**
     * Decrypts; throws {@link UnreadableSecretException} when no key of the ring has the sealed id, or the
     * ciphertext, nonce or associated data are not the ones it was sealed with (moved or changed).
     */
    public byte[] open(SealedSecret sealed, String associatedData) {
        SecretKeySpec key = keysById.get(sealed.keyId());
        if (key == null) {
            throw new UnreadableSecretException("it was sealed under key " + sealed.keyId()
                    + ", which is not in the encryption key ring (add the retired key back, after the current one)");
        }
        try {
            byte[] nonce = DECODER.decode(sealed.nonce());
            if (nonce.length != NONCE_BYTES) {
                throw new UnreadableSecretException("its nonce is not " + NONCE_BYTES + " bytes");
            }
            return cipher(Cipher.DECRYPT_MODE, key, nonce, associatedData).doFinal(DECODER.decode(sealed.ciphertext()));
        } catch (AEADBadTagException | IllegalArgumentException e) {
            throw new UnreadableSecretException("it fails authentication: changed, or copied from another owner");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available in this JVM", e);
        }
    }

    /** Whether a secret is sealed under the current key; one that is not is re-sealed when it is next used. */
    public boolean isCurrent(SealedSecret sealed) {
        return currentKeyId.equals(sealed.keyId());
    }

    public int size() {
        return keysById.size();
    }

    private static Cipher cipher(int mode, SecretKeySpec key, byte[] nonce, String associatedData)
            throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance(TRANSFORMATION);
        cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
        cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    /** A key's name: the start of an HMAC under the key itself, which says nothing about the key. */
    private static String keyId(byte[] raw) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(raw, "HmacSHA256"));
            byte[] fingerprint = mac.doFinal("verification-service encryption key id".getBytes(StandardCharsets.UTF_8));
            return ENCODER.encodeToString(java.util.Arrays.copyOf(fingerprint, KEY_ID_BYTES));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is not available in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "EncryptionKeyRing[" + keysById.size() + " key(s), redacted]";
    }
}

package dev.verificationservice.security;

/**
 * A secret encrypted by {@link EncryptionKeyRing}: AES-256-GCM, each part base64url without padding. Not a secret
 * itself (it opens only with the key and the associated data it was sealed with), so it may be stored.
 *
 * @param keyId      which key of the ring sealed it (so that opening needs no trial, and rotation knows what is old)
 * @param nonce      the 96-bit nonce, fresh for every sealing
 * @param ciphertext the encrypted secret followed by GCM's 128-bit tag
 */
public record SealedSecret(String keyId, String nonce, String ciphertext) {
}

package dev.verificationservice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EncryptionKeyRingTest {

    private static final byte[] SECRET = "twenty bytes secret!".getBytes(StandardCharsets.US_ASCII);
    private static final String OWNER = "TOTP|user-1|factor-1";

    private final SecureRandom random = new SecureRandom();
    private final String oldKey = EncryptionKeyRing.generateBase64Key(random);
    private final String newKey = EncryptionKeyRing.generateBase64Key(random);

    @Test
    void sealsUnderTheCurrentKeyAndOpensWithTheSameAssociatedData() {
        EncryptionKeyRing ring = EncryptionKeyRing.fromBase64(List.of(newKey, oldKey));
        SealedSecret sealed = ring.seal(SECRET, OWNER);

        assertThat(ring.open(sealed, OWNER)).isEqualTo(SECRET);
        assertThat(ring.isCurrent(sealed)).isTrue();
        assertThat(sealed.keyId()).matches("[A-Za-z0-9_-]{11}");
        assertThat(Base64.getUrlDecoder().decode(sealed.nonce())).hasSize(12);
        // The ciphertext is the secret's length plus the 16-byte tag, and holds no copy of it.
        assertThat(Base64.getUrlDecoder().decode(sealed.ciphertext())).hasSize(SECRET.length + 16);
        assertThat(sealed.toString()).doesNotContain(new String(SECRET, StandardCharsets.US_ASCII));
    }

    @Test
    void everySealingHasAFreshNonce() {
        EncryptionKeyRing ring = EncryptionKeyRing.fromBase64(List.of(newKey));
        Set<String> nonces = new HashSet<>();
        Set<String> ciphertexts = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            SealedSecret sealed = ring.seal(SECRET, OWNER);
            nonces.add(sealed.nonce());
            ciphertexts.add(sealed.ciphertext());
        }
        assertThat(nonces).hasSize(200);
        assertThat(ciphertexts).hasSize(200);
    }

    @Test
    void aCiphertextMovedToAnotherUserOrFactorDoesNotOpen() {
        EncryptionKeyRing ring = EncryptionKeyRing.fromBase64(List.of(newKey));
        SealedSecret sealed = ring.seal(SECRET, OWNER);

        assertThatThrownBy(() -> ring.open(sealed, "TOTP|user-2|factor-1"))
                .isInstanceOf(UnreadableSecretException.class).hasMessageContaining("fails authentication");
        assertThatThrownBy(() -> ring.open(sealed, "TOTP|user-1|factor-2"))
                .isInstanceOf(UnreadableSecretException.class);
    }

    @Test
    void tamperingWithTheCiphertextTheNonceOrTheKeyIdFails() {
        EncryptionKeyRing ring = EncryptionKeyRing.fromBase64(List.of(newKey, oldKey));
        SealedSecret sealed = ring.seal(SECRET, OWNER);
        byte[] ciphertext = Base64.getUrlDecoder().decode(sealed.ciphertext());
        ciphertext[0] ^= 1;
        byte[] nonce = Base64.getUrlDecoder().decode(sealed.nonce());
        nonce[11] ^= 1;
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        SealedSecret sealedUnderOld = EncryptionKeyRing.fromBase64(List.of(oldKey)).seal(SECRET, OWNER);

        assertThatThrownBy(() -> ring.open(new SealedSecret(sealed.keyId(), sealed.nonce(),
                encoder.encodeToString(ciphertext)), OWNER)).isInstanceOf(UnreadableSecretException.class);
        assertThatThrownBy(() -> ring.open(new SealedSecret(sealed.keyId(), encoder.encodeToString(nonce),
                sealed.ciphertext()), OWNER)).isInstanceOf(UnreadableSecretException.class);
        // Named as sealed under the other key of the ring: that key does not open it.
        assertThatThrownBy(() -> ring.open(new SealedSecret(sealedUnderOld.keyId(), sealed.nonce(),
                sealed.ciphertext()), OWNER)).isInstanceOf(UnreadableSecretException.class);
        assertThatThrownBy(() -> ring.open(new SealedSecret(sealed.keyId(), "not base64!", sealed.ciphertext()),
                OWNER)).isInstanceOf(UnreadableSecretException.class);
    }

    @Test
    void rotationOpensWithTheOldKeyAndReSealsUnderTheCurrent() {
        SealedSecret underOld = EncryptionKeyRing.fromBase64(List.of(oldKey)).seal(SECRET, OWNER);
        EncryptionKeyRing rotated = EncryptionKeyRing.fromBase64(List.of(newKey, oldKey));

        assertThat(rotated.isCurrent(underOld)).isFalse();
        byte[] opened = rotated.open(underOld, OWNER);
        SealedSecret resealed = rotated.seal(opened, OWNER);

        assertThat(rotated.isCurrent(resealed)).isTrue();
        assertThat(resealed.keyId()).isNotEqualTo(underOld.keyId());
        // Once the old key is retired, only the re-sealed secret still opens.
        EncryptionKeyRing retired = EncryptionKeyRing.fromBase64(List.of(newKey));
        assertThat(retired.open(resealed, OWNER)).isEqualTo(SECRET);
        assertThatThrownBy(() -> retired.open(underOld, OWNER)).isInstanceOf(UnreadableSecretException.class)
                .hasMessageContaining("not in the encryption key ring");
    }

    @Test
    void refusesKeysThatAreNotAes256OrNotRandom() {
        assertThatThrownBy(() -> EncryptionKeyRing.ofKeys(List.of(new byte[16]))).hasMessageContaining("exactly 32");
        assertThatThrownBy(() -> EncryptionKeyRing.ofKeys(List.of(new byte[32]))).hasMessageContaining("not random");
        assertThatThrownBy(() -> EncryptionKeyRing.fromBase64(List.of("not base64!")))
                .hasMessageContaining("encryption key #1");
        assertThatThrownBy(() -> EncryptionKeyRing.fromBase64(List.of(newKey, newKey)))
                .hasMessageContaining("listed twice");
        assertThatThrownBy(() -> EncryptionKeyRing.ofKeys(List.of())).hasMessageContaining("at least one");
        assertThat(EncryptionKeyRing.fromBase64(List.of(newKey)).toString()).doesNotContain(newKey)
                .contains("redacted");
    }
}

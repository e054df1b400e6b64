package dev.verificationservice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

class SecretKeyRingTest {

    private final SecureRandom random = new SecureRandom();

    @Test
    void digestsAreUrlSafeAndDependOnTheKey() {
        String first = SecretKeyRing.generateBase64Key(random);
        String second = SecretKeyRing.generateBase64Key(random);
        SecretKeyRing ring = SecretKeyRing.fromBase64(List.of(second, first));
        SecretKeyRing old = SecretKeyRing.fromBase64(List.of(first));

        assertThat(ring.currentDigest("x")).matches("[A-Za-z0-9_-]{43}");
        assertThat(ring.candidateDigests("x")).containsExactly(ring.currentDigest("x"), old.currentDigest("x"));
        assertThat(ring.currentDigest("x")).isNotEqualTo(old.currentDigest("x"));
        assertThat(ring.currentDigest("x")).isNotEqualTo(ring.currentDigest("y"));
    }

    @Test
    void refusesShortKeysAndBadBase64() {
        assertThatThrownBy(() -> SecretKeyRing.ofKeys(List.of(new byte[16]))).hasMessageContaining("at least 32");
        assertThatThrownBy(() -> SecretKeyRing.fromBase64(List.of("not base64!"))).hasMessageContaining("#1");
        assertThatThrownBy(() -> SecretKeyRing.ofKeys(List.of())).hasMessageContaining("at least one");
    }

    @Test
    void neverPrintsItsKeys() {
        String key = SecretKeyRing.generateBase64Key(random);
        assertThat(SecretKeyRing.fromBase64(List.of(key)).toString()).doesNotContain(key).contains("redacted");
    }

    @Test
    void tokensHaveTheirPromisedShape() {
        SecureTokens tokens = new SecureTokens(random);
        assertThat(tokens.numericCode(8)).matches("[0-9]{8}");
        assertThat(tokens.randomToken()).matches("[A-Za-z0-9_-]{43}");
        assertThat(tokens.randomHex(8)).matches("[0-9a-f]{16}");
        assertThat(SecureTokens.constantTimeEquals("abc", "abc")).isTrue();
        assertThat(SecureTokens.constantTimeEquals("abc", "abd")).isFalse();
        assertThat(SecureTokens.constantTimeEquals(null, "abd")).isFalse();
    }
}

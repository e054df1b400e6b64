package dev.verificationservice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Keys long enough but made by hand are refused; keys drawn at random, as the service generates them, pass. */
class KeyStrengthTest {

    private static final SecureRandom RANDOM = new SecureRandom();

    private static String base64(byte[] raw) {
        return Base64.getEncoder().encodeToString(raw);
    }

    @Test
    void anHmacKeyOfOneRepeatedByteAllZerosARepeatedPatternOrARunIsRefusedSayingWhy() {
        byte[] as = "a".repeat(32).getBytes();
        byte[] abab = "ab".repeat(16).getBytes();
        byte[] twice = "0123456789abcdef".repeat(2).getBytes();
        byte[] run = new byte[32];
        for (int i = 0; i < run.length; i++) {
            run[i] = (byte) i;
        }
        assertThatThrownBy(() -> SecretKeyRing.fromBase64(List.of(base64(as)))).hasMessage(
                "HMAC key #1 is not random: it repeats one byte");
        assertThatThrownBy(() -> SecretKeyRing.ofKeys(List.of(new byte[32]))).hasMessageContaining("repeats one byte");
        assertThatThrownBy(() -> SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(RANDOM), base64(abab))))
                .hasMessage("HMAC key #2 is not random: it repeats a pattern of 2 bytes");
        assertThatThrownBy(() -> SecretKeyRing.ofKeys(List.of(twice))).hasMessageContaining("a pattern of 16 bytes");
        assertThatThrownBy(() -> SecretKeyRing.ofKeys(List.of(run))).hasMessageContaining("constant step");
    }

    @Test
    void anHmacKeyOfFewerThanSixteenDistinctBytesIsRefused() {
        // Each of 15 values at least once, 40 bytes in all, shuffled: no pattern, no run, only too few values.
        List<Byte> values = new ArrayList<>();
        Random seeded = new Random(42);
        for (int i = 0; i < 40; i++) {
            values.add((byte) (i < 15 ? i : seeded.nextInt(15)));
        }
        Collections.shuffle(values, seeded);
        byte[] fifteen = new byte[values.size()];
        for (int i = 0; i < fifteen.length; i++) {
            fifteen[i] = values.get(i);
        }
        assertThat(KeyStrength.weaknessOfBytes(fifteen)).contains("it has only 15 distinct bytes; at least 16 are required");
        assertThatThrownBy(() -> SecretKeyRing.ofKeys(List.of(fifteen))).hasMessageContaining("only 15 distinct bytes");
    }

    @RepeatedTest(200)
    void generatedKeysPass() {
        assertThat(KeyStrength.weaknessOfBytes(Base64.getDecoder().decode(SecretKeyRing.generateBase64Key(RANDOM)))).isEmpty();
        assertThat(KeyStrength.weaknessOfText(new SecureTokens(RANDOM).randomToken())).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abababababababababababababababab",
            "secret-key-secret-key-secret-key", "abcdefghijklmnopqrstuvwxyz", "aabbaabbccaabbccaabbaaccbbaacc"})
    void anApiKeyMadeByHandIsWeak(String key) {
        assertThat(KeyStrength.weaknessOfText(key)).isPresent();
    }

    @Test
    void aHexApiKeyPassesThoughItHasAtMostSixteenDistinctCharacters() {
        byte[] raw = new byte[16];
        RANDOM.nextBytes(raw);
        assertThat(KeyStrength.weaknessOfText(HexFormat.of().formatHex(raw))).isEmpty();
    }
}

package dev.verificationservice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
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

    /**
     * Each thread keeps its Macs between digests: 8 threads digesting different inputs at once, under both keys,
     * each digest checked against an HMAC-SHA-256 computed here from the raw key (RFC 2104, by the JDK's Mac made
     * fresh for every check), so that a Mac shared between threads or left mid-digest would show.
     */
    @Test
    void digestsMadeOnManyThreadsAtOnceAreEachTheHmacOfTheirInput() throws Exception {
        byte[] current = new byte[32];
        byte[] previous = new byte[32];
        random.nextBytes(current);
        random.nextBytes(previous);
        SecretKeyRing ring = SecretKeyRing.ofKeys(List.of(current, previous));
        ExecutorService threads = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> checked = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                checked.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 500; i++) {
                        String input = "thread-" + thread + "-input-" + i;
                        assertThat(ring.currentDigest(input)).isEqualTo(hmac(current, input));
                        assertThat(ring.candidateDigests(input)).containsExactly(hmac(current, input),
                                hmac(previous, input));
                    }
                    return 500;
                }));
            }
            start.countDown();
            for (Future<Integer> thread : checked) {
                assertThat(thread.get(60, TimeUnit.SECONDS)).isEqualTo(500);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static String hmac(byte[] key, String input) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(mac.doFinal(input.getBytes(StandardCharsets.UTF_8)));
    }
}

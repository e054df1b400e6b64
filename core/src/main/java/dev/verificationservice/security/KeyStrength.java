package dev.verificationservice.security;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Refuses keys that were obviously typed by hand rather than drawn at random: long enough, yet guessable.
 * A length check alone accepted {@code aaaa…a} and an all-zero HMAC key. Not an entropy estimate (no test of a
 * single key can be one), only the patterns no random generator produces in practice:
 * <ul>
 *   <li>a repetition of a shorter unit ({@code aaaa}, {@code abab}, {@code 0123456789abcdef} twice);</li>
 *   <li>a run with one constant step ({@code abcdef…}, {@code 0, 1, 2, …});</li>
 *   <li>too few distinct values: fewer than 16 distinct bytes in an HMAC key (32 random bytes have about 30;
 *   fewer than 16 never happens), fewer than 8 distinct characters in an API or admin key (so that a hex key
 *   from {@code openssl rand -hex}, at most 16 distinct characters, still passes).</li>
 * </ul>
 * Keys this service generates pass: they are 32 random bytes, or 43 characters of base64url.
 */
public final class KeyStrength {

    /** Distinct bytes an HMAC key must have at least. */
    public static final int MIN_DISTINCT_KEY_BYTES = 16;
    /** Distinct characters an API or admin key must have at least. */
    public static final int MIN_DISTINCT_KEY_CHARACTERS = 8;

    private KeyStrength() {
    }

    /** Why a raw HMAC key is weak; empty when it looks random. */
    public static Optional<String> weaknessOfBytes(byte[] key) {
        return weakness(key, MIN_DISTINCT_KEY_BYTES, "bytes");
    }

    /** Why an API or admin key (text) is weak; empty when it looks random. */
    public static Optional<String> weaknessOfText(String key) {
        return weakness(key.getBytes(StandardCharsets.UTF_8), MIN_DISTINCT_KEY_CHARACTERS, "characters");
    }

    private static Optional<String> weakness(byte[] key, int minDistinct, String unit) {
        if (key.length < 2) {
            return Optional.empty();
        }
        int period = period(key);
        if (period <= key.length / 2) {
            return Optional.of("it repeats " + (period == 1 ? "one " + unit.substring(0, unit.length() - 1)
                    : "a pattern of " + period + " " + unit));
        }
        if (constantStep(key)) {
            return Optional.of("it is a run with a constant step (such as abcdef or 0, 1, 2, ...)");
        }
        long distinct = distinct(key);
        if (distinct < minDistinct) {
            return Optional.of("it has only " + distinct + " distinct " + unit + "; at least " + minDistinct
                    + " are required");
        }
        return Optional.empty();
    }

    /** The length of the shortest unit the key is a repetition of (the key's length when there is none). */
    private static int period(byte[] key) {
        for (int unit = 1; unit <= key.length / 2; unit++) {
            boolean repeats = true;
            for (int i = unit; i < key.length && repeats; i++) {
                repeats = key[i] == key[i - unit];
            }
            if (repeats) {
                return unit;
            }
        }
        return key.length;
    }

    private static boolean constantStep(byte[] key) {
        int step = key[1] - key[0];
        for (int i = 2; i < key.length; i++) {
            if (key[i] - key[i - 1] != step) {
                return false;
            }
        }
        return true;
    }

    private static long distinct(byte[] key) {
        boolean[] seen = new boolean[256];
        long count = 0;
        for (byte b : key) {
            if (!seen[b & 0xff]) {
                seen[b & 0xff] = true;
                count++;
            }
        }
        return count;
    }
}

package dev.verificationservice.totp;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * RFC 6238 (TOTP) over RFC 4226 (HOTP), from the RFCs: the time step is the count of whole periods since the Unix
 * epoch (T0 = 0), and the code is HOTP's dynamic truncation of the HMAC of that count, reduced to the digits.
 */
public final class Totp {

    /** The period every authenticator app assumes when the otpauth URI names none: 30 seconds. */
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(30);
    /** What apps show: 6 digits. */
    public static final int DEFAULT_DIGITS = 6;
    /** RFC 4226 §5.3 requires at least 6 digits; 8 are the most an app is sure to show. */
    public static final int MIN_DIGITS = 6;
    public static final int MAX_DIGITS = 8;

    private static final int[] POWERS_OF_TEN = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
            100_000_000};

    private Totp() {
    }

    /** The time step {@code instant} falls in: whole periods since the epoch (RFC 6238 §4.2, T0 = 0). */
    public static long step(Instant instant, Duration period) {
        return Math.floorDiv(instant.getEpochSecond(), period.getSeconds());
    }

    /** The code of one time step. */
    public static String code(byte[] key, long step, TotpAlgorithm algorithm, int digits) {
        return hotp(key, step, algorithm, digits);
    }

    /** RFC 4226 §5.3: HMAC of the 8-byte big-endian counter, dynamic truncation, the last {@code digits} digits. */
    static String hotp(byte[] key, long counter, TotpAlgorithm algorithm, int digits) {
        if (digits < MIN_DIGITS || digits > MAX_DIGITS) {
            throw new IllegalArgumentException("a code has " + MIN_DIGITS + " to " + MAX_DIGITS + " digits, not "
                    + digits);
        }
        byte[] hash = mac(key, algorithm, ByteBuffer.allocate(Long.BYTES).putLong(counter).array());
        int offset = hash[hash.length - 1] & 0x0f;
        int binary = ((hash[offset] & 0x7f) << 24)
                | ((hash[offset + 1] & 0xff) << 16)
                | ((hash[offset + 2] & 0xff) << 8)
                | (hash[offset + 3] & 0xff);
        String code = Integer.toString(binary % POWERS_OF_TEN[digits]);
        return "0".repeat(digits - code.length()) + code;
    }

    private static byte[] mac(byte[] key, TotpAlgorithm algorithm, byte[] message) {
        try {
            // A Mac is not thread-safe and cheap to create, so every code gets its own.
            Mac mac = Mac.getInstance(algorithm.macName());
            mac.init(new SecretKeySpec(key, algorithm.macName()));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm.macName() + " is not available in this JVM", e);
        }
    }
}

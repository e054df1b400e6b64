package dev.verificationservice.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/** Random secrets and constant-time comparison: the only places the service makes or compares secrets. */
public final class SecureTokens {

    /** 32 random bytes: 256 bits, enough that guessing a link code or device secret is hopeless. */
    public static final int RANDOM_TOKEN_BYTES = 32;
    /** Length of a base64url (unpadded) encoding of {@link #RANDOM_TOKEN_BYTES}. */
    public static final int RANDOM_TOKEN_LENGTH = 43;

    private static final Base64.Encoder URL_ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final SecureRandom random;

    public SecureTokens(SecureRandom random) {
        this.random = random;
    }

    public SecureTokens() {
        this(new SecureRandom());
    }

    /** The {@code SecureRandom} every token comes from, for generators of their own (TOTP secrets, recovery codes). */
    public SecureRandom random() {
        return random;
    }

    /** A numeric code of {@code digits} digits, each uniformly distributed (leading zeros allowed). */
    public String numericCode(int digits) {
        StringBuilder code = new StringBuilder(digits);
        for (int i = 0; i < digits; i++) {
            code.append((char) ('0' + random.nextInt(10)));
        }
        return code.toString();
    }

    /** 32 random bytes, base64url without padding (43 characters). */
    public String randomToken() {
        byte[] bytes = new byte[RANDOM_TOKEN_BYTES];
        random.nextBytes(bytes);
        return URL_ENCODER.encodeToString(bytes);
    }

    /** Random bytes in an attempt id: 128 bits, so two attempts never share one. */
    public static final int ATTEMPT_ID_BYTES = 16;

    /**
     * A random id for one attempt at a write (22 base64url characters): written with the write, so that a
     * retry of the same attempt is recognised. Not a secret. Short enough for a DynamoDB ClientRequestToken.
     */
    public String attemptId() {
        byte[] bytes = new byte[ATTEMPT_ID_BYTES];
        random.nextBytes(bytes);
        return URL_ENCODER.encodeToString(bytes);
    }

    /** {@code bytes} random bytes as lower-case hex, for unique suffixes that carry no secret. */
    public String randomHex(int bytes) {
        byte[] raw = new byte[bytes];
        random.nextBytes(raw);
        StringBuilder hex = new StringBuilder(bytes * 2);
        for (byte b : raw) {
            hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return hex.toString();
    }

    /** Compares two digests without leaking, through timing, how long a prefix they share. */
    public static boolean constantTimeEquals(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}

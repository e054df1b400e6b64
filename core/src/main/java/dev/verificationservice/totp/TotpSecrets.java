package dev.verificationservice.totp;

import java.security.SecureRandom;
import org.apache.commons.codec.binary.Base32;

/** A factor's shared secret: 160 random bits (RFC 4226 §4 recommends the HMAC-SHA-1 output length), base32 for apps. */
public final class TotpSecrets {

    /** 160 bits. */
    public static final int SECRET_BYTES = 20;

    private final SecureRandom random;

    public TotpSecrets(SecureRandom random) {
        this.random = random;
    }

    public byte[] newSecret() {
        byte[] secret = new byte[SECRET_BYTES];
        random.nextBytes(secret);
        return secret;
    }

    /** RFC 4648 base32, upper case, without padding (160 bits are exactly 32 characters, so there is none). */
    public static String base32(byte[] secret) {
        return new Base32().encodeToString(secret).replace("=", "");
    }
}

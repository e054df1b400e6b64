package dev.verificationservice.totp;

/** The HMAC functions RFC 6238 allows; authenticator apps expect SHA1, which is what enrolment offers. */
public enum TotpAlgorithm {
    SHA1("HmacSHA1"),
    SHA256("HmacSHA256"),
    SHA512("HmacSHA512");

    private final String macName;

    TotpAlgorithm(String macName) {
        this.macName = macName;
    }

    /** The JCA name of the HMAC. */
    String macName() {
        return macName;
    }
}

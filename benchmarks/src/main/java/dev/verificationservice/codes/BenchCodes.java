package dev.verificationservice.codes;

import dev.verificationservice.security.SecretKeyRing;

/**
 * The benchmarks' way to what the core keeps package-private: the digest a code is stored under, so that a
 * benchmark can store codes whose clear text it knows (as the development outbox would show them) without
 * sending each one through the API.
 */
public final class BenchCodes {

    private BenchCodes() {
    }

    /** The stored digest of {@code code}: the same HMAC input the core builds when it issues and verifies. */
    public static String digest(SecretKeyRing keys, CodeFormat format, String userId, CodeType type, String code) {
        return keys.currentDigest(CodeDigests.input(format, userId, type, code));
    }
}

package dev.verificationservice.server.fuzz;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The content of the store under test, read around every request: after a refused request it must be exactly
 * what it was before. Each store's fingerprint reads the store straight, not through the service.
 */
interface StoreFingerprint extends AutoCloseable {

    /** How many items (rows) the store holds and a SHA-256 over all of them, in key order. */
    record Print(long rows, String sha256) {
        @Override
        public String toString() {
            return rows + " rows, sha256 " + sha256.substring(0, 16);
        }
    }

    Print current();

    /** How often the store was read whole (the rest came from the cache: nothing was written in between). */
    long recomputations();

    long recomputeMillis();

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.verificationservice.idempotency;

import java.time.Instant;
import java.util.Optional;

/**
 * The item {@code IDEMPOTENCY#<keyDigest>}: one client's Idempotency-Key and what became of the request that
 * first used it. No key, body or answer in clear: the key and the request are HMACs, the answer is sealed
 * (AES-GCM under a key derived from the server's HMAC key and the Idempotency-Key), since it may hold a
 * device secret. An answer that held a secret shown once (a TOTP secret, recovery codes) is not kept at all:
 * the record then says only that the request ran ({@link StoredAnswer#withheld}).
 *
 * @param requestDigest HMAC of the request (method, path, body), to refuse the key for another request
 * @param claimedBy     the attempt that is running, or ran, the request
 * @param claimedAt     when it claimed the key; a claim left pending long past this may be taken over
 * @param answer        the sealed answer, once the request is done
 */
public record IdempotencyRecord(String keyDigest, String requestDigest, String claimedBy, Instant claimedAt,
                                Optional<StoredAnswer> answer, Instant expiresAt) {

    /** What the first request answered: its HTTP status and its body, sealed; or {@link #WITHHELD}. */
    public record StoredAnswer(int status, String sealedBody) {

        /**
         * The body of an answer that was not kept because it held a secret shown once. Never a sealed body: those
         * are base64url of a nonce and a tag at least, 38 characters or more.
         */
        public static final String WITHHELD = "withheld";

        /** The request ran and answered {@code status}, but its body held a secret shown once and is not kept. */
        public static StoredAnswer withheld(int status) {
            return new StoredAnswer(status, WITHHELD);
        }

        public boolean isWithheld() {
            return WITHHELD.equals(sealedBody);
        }
    }

    public boolean done() {
        return answer.isPresent();
    }
}

package dev.verificationservice.idempotency;

import java.time.Instant;
import java.util.Optional;

/**
 * The item {@code IDEMPOTENCY#<keyDigest>}: one client's Idempotency-Key and what became of the request that
 * first used it. No key, body or answer in clear: the key and the request are HMACs, the answer is sealed
 * (AES-GCM under a key derived from the server's HMAC key and the Idempotency-Key), since it may hold a
 * device secret that is shown once.
 *
 * @param requestDigest HMAC of the request (method, path, body), to refuse the key for another request
 * @param claimedBy     the attempt that is running, or ran, the request
 * @param claimedAt     when it claimed the key; a claim left pending long past this may be taken over
 * @param answer        the sealed answer, once the request is done
 */
public record IdempotencyRecord(String keyDigest, String requestDigest, String claimedBy, Instant claimedAt,
                                Optional<StoredAnswer> answer, Instant expiresAt) {

    /** What the first request answered: its HTTP status and its body, sealed. */
    public record StoredAnswer(int status, String sealedBody) {
    }

    public boolean done() {
        return answer.isPresent();
    }
}

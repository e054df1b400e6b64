package dev.verificationservice.idempotency;

import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.validation.InvalidInputException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Requests that are safe to retry: the same Idempotency-Key with the same request within 24 hours answers the
 * first answer again, without running the request a second time (no second message, no second count, no
 * second device); the same key with another request is refused.
 *
 * <p>The first request claims the key in one conditional write, so of simultaneous requests with one key
 * exactly one runs; the others wait (up to a bound) for its answer and give the same one. A request that
 * fails in a way that must not be replayed (anything but success) gives the key up, so a retry runs again.
 * A claim left pending by a request that died is taken over after {@link #STALE_AFTER}.
 *
 * <p>An answer that holds a secret shown once (a TOTP secret, recovery codes) is not kept ({@link #finishShownOnce}):
 * a replay answers {@link Begin.ShownOnce} instead. The secret leaves the service once, in the first answer, and an
 * Idempotency-Key, which proxies and clients log and keep as no secret, never brings it back: not while it is
 * valid, and not after the factor was confirmed or removed or the codes were used or replaced.
 */
public final class IdempotentRequests {

    /** How long a key and its answer are kept. */
    public static final Duration KEPT_FOR = Duration.ofHours(24);
    /** A claim pending longer than this belonged to a request that died. */
    public static final Duration STALE_AFTER = Duration.ofSeconds(60);
    /** Printable ASCII, as Stripe and the IETF draft allow; at most 255 characters. */
    public static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final IdempotencyRepository records;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public IdempotentRequests(IdempotencyRepository records, SecretKeyRing keys, SecureTokens tokens, Clock clock) {
        this.records = records;
        this.keys = keys;
        this.tokens = tokens;
        this.clock = clock;
    }

    /** Every outcome of presenting an Idempotency-Key. */
    public sealed interface Begin {
        /** This request holds the key: run it, then {@link #finish} or {@link #abandon} the ticket. */
        record Proceed(Ticket ticket) implements Begin {
        }

        /** The key was used for this same request before: answer this again. */
        record Replay(int status, String body) implements Begin {
        }

        /**
         * The key was used for this same request before, whose answer held a secret shown once and was not kept:
         * refuse (409); the request is not run again.
         */
        record ShownOnce() implements Begin {
        }

        /** The key was used for another request: refuse (422). */
        record KeyReused() implements Begin {
        }

        /** The request holding the key is still running after the wait: the client should retry shortly (409). */
        record StillRunning() implements Begin {
        }
    }

    /** What {@link #finish} needs to store the answer under the claimed key. */
    public record Ticket(String scope, String key, String keyDigest, String claimedBy) {
        @Override
        public String toString() {
            return "Ticket[keyDigest=" + keyDigest + "]";
        }
    }

    /**
     * @param scope   whose keys these are (the API key's id): two clients' keys never meet
     * @param key     the Idempotency-Key header
     * @param request what identifies the request (method, path and body bytes)
     * @param wait    how long to wait for a simultaneous request with the same key to finish
     */
    public Begin begin(String scope, String key, byte[] request, Duration wait) {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new InvalidInputException("Idempotency-Key", "must be 1 to 255 printable ASCII characters");
        }
        String keyDigest = keys.currentDigest("IDEMPOTENCY|" + scope + "|" + key);
        String requestDigest = keys.currentDigest("IDEMPOTENT-REQUEST|" + Base64.getEncoder().encodeToString(request));
        Instant now = clock.instant();
        IdempotencyRecord pending = new IdempotencyRecord(keyDigest, requestDigest, tokens.attemptId(), now,
                Optional.empty(), now.plus(KEPT_FOR));
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Optional<IdempotencyRecord> holder = records.claimIdempotencyKey(pending, now.minus(STALE_AFTER));
            if (holder.isEmpty()) {
                return new Begin.Proceed(new Ticket(scope, key, keyDigest, pending.claimedBy()));
            }
            IdempotencyRecord existing = holder.get();
            if (!SecureTokens.constantTimeEquals(existing.requestDigest(), requestDigest)) {
                return new Begin.KeyReused();
            }
            if (existing.done()) {
                return answered(scope, key, existing.answer().orElseThrow());
            }
            if (System.nanoTime() >= deadline) {
                return new Begin.StillRunning();
            }
            pause();
            Optional<IdempotencyRecord> current = records.findIdempotencyKey(keyDigest, clock.instant());
            if (current.isPresent() && current.get().done()
                    && SecureTokens.constantTimeEquals(current.get().requestDigest(), requestDigest)) {
                return answered(scope, key, current.get().answer().orElseThrow());
            }
            now = clock.instant();
        }
    }

    private Begin answered(String scope, String key, IdempotencyRecord.StoredAnswer answer) {
        if (answer.isWithheld()) {
            return new Begin.ShownOnce();
        }
        return new Begin.Replay(answer.status(), unseal(scope, key, answer.sealedBody()));
    }

    /** Stores the answer of a successful request, sealed, for the key's replays. */
    public void finish(Ticket ticket, int status, String body) {
        records.completeIdempotencyKey(ticket.keyDigest(), ticket.claimedBy(),
                new IdempotencyRecord.StoredAnswer(status, seal(ticket.scope(), ticket.key(), body)));
    }

    /**
     * Records that a successful request ran, without its answer, which held a secret shown once: a replay with the
     * key is {@link Begin.ShownOnce}, and nothing of the secret is stored, sealed or not.
     */
    public void finishShownOnce(Ticket ticket, int status) {
        records.completeIdempotencyKey(ticket.keyDigest(), ticket.claimedBy(),
                IdempotencyRecord.StoredAnswer.withheld(status));
    }

    /** Gives the key up: the request did not succeed, and a retry with the key must run it again. */
    public void abandon(Ticket ticket) {
        records.releaseIdempotencyKey(ticket.keyDigest(), ticket.claimedBy());
    }

    private static void pause() {
        try {
            Thread.sleep(25);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a request with the same Idempotency-Key", e);
        }
    }

    private String seal(String scope, String key, String body) {
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            random.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, sealingKey(keys.currentDigest(sealingInput(scope, key))),
                    new GCMParameterSpec(TAG_BITS, nonce));
            byte[] sealed = cipher.doFinal(body.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(
                    ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot seal an answer", e);
        }
    }

    /** Tries each key of the ring, current first: GCM's tag tells the right one. */
    private String unseal(String scope, String key, String sealedBody) {
        byte[] raw = Base64.getUrlDecoder().decode(sealedBody);
        List<String> candidates = keys.candidateDigests(sealingInput(scope, key));
        for (String candidate : candidates) {
            try {
                Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
                cipher.init(Cipher.DECRYPT_MODE, sealingKey(candidate), new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
                return new String(cipher.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES), StandardCharsets.UTF_8);
            } catch (GeneralSecurityException e) {
                // not sealed under this key; try the next
            }
        }
        throw new IllegalStateException("a stored answer could not be opened with any key of the ring");
    }

    private static String sealingInput(String scope, String key) {
        return "IDEMPOTENCY-SEAL|" + scope + "|" + key;
    }

    /** An HMAC digest (32 bytes, base64url) used as an AES-256 key. */
    private static SecretKeySpec sealingKey(String digest) {
        return new SecretKeySpec(Base64.getUrlDecoder().decode(digest), "AES");
    }
}

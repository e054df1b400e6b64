package dev.verificationservice.passkeys;

import dev.verificationservice.audit.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for passkeys: challenges (single use, with a ttl), the user's random user handle, and credentials
 * (found by credential id alone, for a username-less sign-in, and by user). Every item is bounded: nothing grows with
 * requests. As for every SPI here, validity is decided inside the conditional writes, and every write is correct
 * when it runs twice (the attempt id is how a store recognises its own earlier write).
 */
public interface PasskeyRepository {

    /** Stores a new challenge; a taken key is a StoreException. */
    void insertChallenge(PasskeyChallenge challenge);

    /** The stored challenge (a strongly consistent read), open, used or expired. */
    Optional<PasskeyChallenge> findChallenge(String challenge);

    /**
     * The user's user handle: the stored one, or {@code candidate}, stored now on the condition that the user has
     * none (of two concurrent first registrations both get the one stored first).
     */
    String userHandle(String userId, String candidate);

    /** The user's passkeys, by credential id. */
    List<Passkey> findPasskeys(String userId);

    /** The passkey with this credential id, whoever's it is. */
    Optional<Passkey> findPasskey(String credentialId);

    /** What a registration write did. */
    enum Registered { STORED, CHALLENGE_NOT_OPEN, CAP_REACHED, CREDENTIAL_EXISTS }

    /**
     * Registers a passkey in one atomic step: the registration challenge consumed (open at {@code now}, a
     * registration challenge of {@code passkey.userId()}, or consumed by this same {@code attemptId}: a retry,
     * answered STORED; any other is CHALLENGE_NOT_OPEN), the passkey stored under the challenge's user handle
     * (whatever {@code passkey.userHandle()} says: the caller has not read it) on the conditions that no
     * passkey has its credential id and that the user holds fewer than {@code maxPasskeys}, and its
     * {@code PASSKEY_ADDED} entry (with its undelivered event). Nothing is written unless all of it is.
     */
    Registered register(String challenge, String attemptId, Instant now, Passkey passkey, AuditEntry added,
                        int maxPasskeys);

    /**
     * The attempt write of a sign-in ({@link PasskeyUse}): true when it won, now or before (the challenge carries
     * this attempt id); false, with nothing written, when the challenge is not open or the sign count moved.
     */
    boolean acceptAssertion(PasskeyUse use);

    /** Renames the user's passkey; false when the user has no passkey with that id. */
    boolean rename(String userId, String credentialId, String label);

    /** Deletes the user's passkeys (all of them, or the one named) and returns what it deleted. */
    List<Passkey> delete(String userId, Optional<String> credentialId);
}

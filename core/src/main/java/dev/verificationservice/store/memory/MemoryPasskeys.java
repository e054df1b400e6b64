package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyUse;
import dev.verificationservice.store.StoreException;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Passkeys in memory: challenges by value, user handles by user, passkeys by credential id.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Register: under the store's lock, the challenge must be open at {@code now} (or consumed by this attempt:
 *   a retry, answered STORED with nothing written); the credential id free; the user below the cap; the entry's
 *   key free. Then the challenge is consumed, the passkey and its entry stored.</li>
 *   <li>Accept an assertion ({@link MemoryAttempts}): the condition is an open challenge and a passkey whose sign
 *   count is still the one tested; the change consumes the challenge (stamped with the attempt id) and moves the
 *   count and {@code lastUsedAt}.</li>
 *   <li>User handle: the stored one, or the candidate stored now.</li>
 * </ol>
 */
final class MemoryPasskeys implements PasskeyRepository {

    private final Object lock;
    private final MemoryAudit audit;
    private final MemoryAttempts attempts;
    private final Map<String, PasskeyChallenge> challenges = new HashMap<>();
    private final Map<String, String> handles = new HashMap<>();
    private final Map<String, Passkey> passkeys = new LinkedHashMap<>();

    MemoryPasskeys(Object lock, MemoryAudit audit, MemoryAttempts attempts) {
        this.lock = lock;
        this.audit = audit;
        this.attempts = attempts;
    }

    @Override
    public void insertChallenge(PasskeyChallenge challenge) {
        synchronized (lock) {
            if (challenges.putIfAbsent(challenge.challenge(), challenge) != null) {
                throw new StoreException("passkey challenge refused: its key exists already; nothing was written");
            }
        }
    }

    @Override
    public Optional<PasskeyChallenge> findChallenge(String challenge) {
        synchronized (lock) {
            return Optional.ofNullable(challenges.get(challenge));
        }
    }

    @Override
    public String userHandle(String userId, String candidate) {
        synchronized (lock) {
            return handles.computeIfAbsent(userId, ignored -> candidate);
        }
    }

    @Override
    public List<Passkey> findPasskeys(String userId) {
        synchronized (lock) {
            return passkeys.values().stream().filter(passkey -> passkey.userId().equals(userId))
                    .sorted(Comparator.comparing(Passkey::credentialId)).toList();
        }
    }

    @Override
    public Optional<Passkey> findPasskey(String credentialId) {
        synchronized (lock) {
            return Optional.ofNullable(passkeys.get(credentialId));
        }
    }

    @Override
    public Registered register(String challenge, String attemptId, Instant now, Passkey passkey, AuditEntry added,
                               int maxPasskeys) {
        synchronized (lock) {
            PasskeyChallenge stored = challenges.get(challenge);
            if (stored != null && stored.consumedBy().equals(Optional.of(attemptId))) {
                return Registered.STORED;
            }
            if (stored == null || !stored.isOpenAt(now) || !stored.isRegistrationOf(passkey.userId())) {
                return Registered.CHALLENGE_NOT_OPEN;
            }
            if (passkeys.containsKey(passkey.credentialId())) {
                return Registered.CREDENTIAL_EXISTS;
            }
            if (findPasskeys(passkey.userId()).size() >= maxPasskeys) {
                return Registered.CAP_REACHED;
            }
            audit.requireFree(added, "passkey registration");
            challenges.put(challenge, stored.consumed(attemptId));
            passkeys.put(passkey.credentialId(), passkey.withUserHandle(stored.userHandle().orElseThrow()));
            audit.add(added);
            return Registered.STORED;
        }
    }

    @Override
    public boolean acceptAssertion(PasskeyUse use) {
        synchronized (lock) {
            PasskeyChallenge stored = challenges.get(use.challenge());
            Passkey passkey = passkeys.get(use.credentialId());
            boolean wonBefore = stored != null && stored.consumedBy().equals(Optional.of(use.attemptId()));
            boolean holds = stored != null && stored.isOpenAt(use.now()) && passkey != null
                    && passkey.userId().equals(use.userId()) && passkey.signCount() == use.expectedSignCount();
            return attempts.write(holds, wonBefore, use.entry(), use.placeToGiveBack(), "passkey assertion", () -> {
                challenges.put(use.challenge(), stored.consumed(use.attemptId()));
                passkeys.put(use.credentialId(), passkey.used(use.newSignCount(), use.backedUp(), use.now()));
            });
        }
    }

    @Override
    public boolean rename(String userId, String credentialId, String label) {
        synchronized (lock) {
            Passkey passkey = passkeys.get(credentialId);
            if (passkey == null || !passkey.userId().equals(userId)) {
                return false;
            }
            passkeys.put(credentialId, passkey.renamed(label));
            return true;
        }
    }

    @Override
    public List<Passkey> delete(String userId, Optional<String> credentialId) {
        synchronized (lock) {
            List<Passkey> doomed = findPasskeys(userId).stream()
                    .filter(passkey -> credentialId.map(passkey.credentialId()::equals).orElse(true)).toList();
            doomed.forEach(passkey -> passkeys.remove(passkey.credentialId()));
            return doomed;
        }
    }
}

package dev.verificationservice.spring.store;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyUse;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The store's passkeys, each call timed. */
record MeteredPasskeys(PasskeyRepository passkeys, StoreTimers.Port timer) implements PasskeyRepository {

    @Override
    public void insertChallenge(PasskeyChallenge challenge) {
        timer.run("insertChallenge", () -> passkeys.insertChallenge(challenge));
    }

    @Override
    public Optional<PasskeyChallenge> findChallenge(String challenge) {
        return timer.time("findChallenge", () -> passkeys.findChallenge(challenge));
    }

    @Override
    public String userHandle(String userId, String candidate) {
        return timer.time("userHandle", () -> passkeys.userHandle(userId, candidate));
    }

    @Override
    public List<Passkey> findPasskeys(String userId) {
        return timer.time("findPasskeys", () -> passkeys.findPasskeys(userId));
    }

    @Override
    public Optional<Passkey> findPasskey(String credentialId) {
        return timer.time("findPasskey", () -> passkeys.findPasskey(credentialId));
    }

    @Override
    public Registered register(String challenge, String attemptId, Instant now, Passkey passkey, AuditEntry added,
                               int maxPasskeys) {
        return timer.time("register", () -> passkeys.register(challenge, attemptId, now, passkey, added, maxPasskeys));
    }

    @Override
    public boolean acceptAssertion(PasskeyUse use) {
        return timer.time("acceptAssertion", () -> passkeys.acceptAssertion(use));
    }

    @Override
    public boolean rename(String userId, String credentialId, String label) {
        return timer.time("rename", () -> passkeys.rename(userId, credentialId, label));
    }

    @Override
    public List<Passkey> delete(String userId, Optional<String> credentialId) {
        return timer.time("delete", () -> passkeys.delete(userId, credentialId));
    }
}

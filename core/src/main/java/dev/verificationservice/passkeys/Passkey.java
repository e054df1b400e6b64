package dev.verificationservice.passkeys;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A registered passkey as the store keeps it. Nothing here is secret (the private key never leaves the
 * authenticator), but only {@link PasskeySummary} leaves the service.
 *
 * @param credentialId the credential id, base64url without padding
 * @param userHandle   the user's random WebAuthn user handle (base64url), never the user id
 * @param publicKey    the credential public key, COSE-encoded as the authenticator sent it
 * @param signCount    the authenticator's signature counter at the last accepted use (0 for synced passkeys)
 * @param aaguid       the authenticator model's AAGUID (all zeros for attestation {@code none})
 */
public record Passkey(String userId, String credentialId, String userHandle, String label, byte[] publicKey,
                      long signCount, Set<String> transports, boolean backupEligible, boolean backedUp,
                      boolean userVerified, String aaguid, Instant createdAt, Optional<Instant> lastUsedAt) {

    public Passkey {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(credentialId, "credentialId");
        Objects.requireNonNull(userHandle, "userHandle");
        Objects.requireNonNull(label, "label");
        publicKey = publicKey.clone();
        transports = Set.copyOf(transports);
        Objects.requireNonNull(aaguid, "aaguid");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(lastUsedAt, "lastUsedAt");
    }

    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** This passkey after an accepted sign-in. */
    public Passkey used(long newSignCount, boolean nowBackedUp, Instant at) {
        return new Passkey(userId, credentialId, userHandle, label, publicKey, newSignCount, transports,
                backupEligible, nowBackedUp, userVerified, aaguid, createdAt, Optional.of(at));
    }

    /** This passkey under the user handle its registration challenge was issued with (a store fills it in). */
    public Passkey withUserHandle(String handle) {
        return new Passkey(userId, credentialId, handle, label, publicKey, signCount, transports, backupEligible,
                backedUp, userVerified, aaguid, createdAt, lastUsedAt);
    }

    public Passkey renamed(String newLabel) {
        return new Passkey(userId, credentialId, userHandle, newLabel, publicKey, signCount, transports,
                backupEligible, backedUp, userVerified, aaguid, createdAt, lastUsedAt);
    }

    public PasskeySummary summary() {
        return new PasskeySummary(credentialId, label, transports, backupEligible, backedUp, aaguid, createdAt,
                lastUsedAt);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Passkey that && credentialId.equals(that.credentialId) && userId.equals(that.userId)
                && userHandle.equals(that.userHandle) && label.equals(that.label)
                && java.util.Arrays.equals(publicKey, that.publicKey) && signCount == that.signCount
                && transports.equals(that.transports) && backupEligible == that.backupEligible
                && backedUp == that.backedUp && userVerified == that.userVerified && aaguid.equals(that.aaguid)
                && createdAt.equals(that.createdAt) && lastUsedAt.equals(that.lastUsedAt);
    }

    @Override
    public int hashCode() {
        return credentialId.hashCode();
    }

    @Override
    public String toString() {
        return "Passkey[" + userId + ", " + credentialId + ", " + label + ", signCount=" + signCount + "]";
    }
}

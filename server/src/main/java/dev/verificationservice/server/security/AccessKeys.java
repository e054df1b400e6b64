package dev.verificationservice.server.security;

import dev.verificationservice.server.config.KeyMaterial;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * Which role a presented key has: an application key ({@code VERIFICATION_API_KEYS}), an admin key
 * ({@code VERIFICATION_ADMIN_API_KEYS}, with its key id), or none. The one place keys are compared, for the
 * API key filter and the console's sign-in alike.
 *
 * <p>The presented key is hashed once and compared with every configured key of both roles, each as a
 * SHA-256 hash with {@link MessageDigest#isEqual}, without an early exit, so neither the length, the content
 * nor the role of a key leaks through timing.
 */
@Component
public class AccessKeys {

    /** What a key opens. */
    public enum Role { NONE, APPLICATION, ADMIN }

    /**
     * The role of a presented key and the id of the configured key it matched ({@link KeyMaterial#adminKeyId} or
     * {@link KeyMaterial#applicationKeyId}); no id for {@link Role#NONE}.
     */
    public record Match(Role role, Optional<String> keyId) {
        /** The id of an admin key, for the audit log: empty for any other role. */
        public Optional<String> adminKeyId() {
            return role == Role.ADMIN ? keyId : Optional.empty();
        }
    }

    private final List<byte[]> applicationKeyHashes;
    private final List<String> applicationKeyIds;
    private final List<byte[]> adminKeyHashes;
    private final List<String> adminKeyIds;

    public AccessKeys(KeyMaterial keys) {
        this.applicationKeyHashes = keys.apiKeys().stream().map(KeyMaterial::sha256).toList();
        this.applicationKeyIds = keys.apiKeys().stream().map(KeyMaterial::applicationKeyId).toList();
        this.adminKeyHashes = keys.adminKeys().stream().map(KeyMaterial::sha256).toList();
        this.adminKeyIds = keys.adminKeys().stream().map(KeyMaterial::adminKeyId).toList();
    }

    /** True when at least one admin key is configured: the operator API and the console are on. */
    public boolean operatorKeysConfigured() {
        return !adminKeyHashes.isEmpty();
    }

    /** Compares the presented key with every key of both roles: no early exit, whatever matched before. */
    public Match match(String presented) {
        byte[] hash = KeyMaterial.sha256(presented);
        int applicationIndex = matchingIndex(hash, applicationKeyHashes);
        int adminIndex = matchingIndex(hash, adminKeyHashes);
        // A key is never in both lists (refused at start); should it be, the lesser role wins.
        if (applicationIndex >= 0) {
            return new Match(Role.APPLICATION, Optional.of(applicationKeyIds.get(applicationIndex)));
        }
        if (adminIndex >= 0) {
            return new Match(Role.ADMIN, Optional.of(adminKeyIds.get(adminIndex)));
        }
        return new Match(Role.NONE, Optional.empty());
    }

    /** The index of the hash in the list, or -1: every entry compared in constant time, without an early exit. */
    private static int matchingIndex(byte[] hash, List<byte[]> hashes) {
        int index = -1;
        for (int i = 0; i < hashes.size(); i++) {
            boolean equal = MessageDigest.isEqual(hash, hashes.get(i));
            index = equal ? i : index;
        }
        return index;
    }
}

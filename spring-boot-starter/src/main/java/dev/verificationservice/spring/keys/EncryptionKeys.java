package dev.verificationservice.spring.keys;

import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import java.security.SecureRandom;
import java.util.List;

/**
 * The AES-256 keys TOTP secrets are encrypted with ({@code verification.encryption-keys}, current first): a ring of
 * its own, never the HMAC keys. Resolved like {@link SecretKeys}: configured keys win; on the embedded store a
 * missing key is generated on first start and kept in {@code <data-dir>/encryption-key}, owner-only; on DynamoDB
 * they must be configured.
 */
public final class EncryptionKeys {

    public static final String ENCRYPTION_KEY_FILE = "encryption-key";
    public static final String SETTING = "VERIFICATION_ENCRYPTION_KEYS";
    private static final String KEYS_ARE = "base64 AES-256 keys of exactly 32 random bytes";

    private EncryptionKeys() {
    }

    public static EncryptionKeyRing resolve(VerificationProperties properties, SecureRandom random) {
        return ring(SecretKeys.configured(properties.encryptionKeys(), properties, SETTING, KEYS_ARE).orElseGet(() ->
                List.of(SecretKeys.loadOrGenerate(properties.dataDir().resolve(ENCRYPTION_KEY_FILE), random,
                        "encryption key", false))));
    }

    /** What {@link #resolve} refuses, without generating or reading a key file: the settings check's rule. */
    public static void check(VerificationProperties properties, StartupProblems problems) {
        problems.run(() -> SecretKeys.configured(properties.encryptionKeys(), properties, SETTING, KEYS_ARE)
                .ifPresent(EncryptionKeys::ring));
    }

    private static EncryptionKeyRing ring(List<String> keys) {
        try {
            return EncryptionKeyRing.fromBase64(keys);
        } catch (IllegalArgumentException e) {
            throw new StartupException(SETTING + " is not usable: " + e.getMessage() + ".",
                    "Give base64 keys of exactly 32 random bytes, for example from: openssl rand -base64 32", e);
        }
    }
}

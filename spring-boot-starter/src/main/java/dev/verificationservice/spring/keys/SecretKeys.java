package dev.verificationservice.spring.keys;

import dev.verificationservice.keys.KeyFileException;
import dev.verificationservice.keys.KeyFiles;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;

/**
 * The HMAC keys codes and device secrets are digested with ({@code verification.secret-keys}, current first).
 * Configured keys always win. On the embedded store a missing key is generated on first start and kept in
 * {@code <data-dir>/secret-key}, owner-only. On DynamoDB the keys must be configured: every instance must
 * digest with the same keys, so one generated per instance would be wrong.
 */
public final class SecretKeys {

    public static final String SECRET_KEY_FILE = "secret-key";
    public static final String SETTING = "VERIFICATION_SECRET_KEYS";
    private static final String KEYS_ARE = "base64 HMAC keys of at least 32 bytes";

    private SecretKeys() {
    }

    public static SecretKeyRing resolve(VerificationProperties properties, SecureRandom random) {
        return ring(configured(properties.secretKeys(), properties, SETTING, KEYS_ARE).orElseGet(() -> List.of(
                loadOrGenerate(properties.dataDir().resolve(SECRET_KEY_FILE), random, "HMAC key", false))));
    }

    /** What {@link #resolve} refuses, without generating or reading a key file: the settings check's rule. */
    public static void check(VerificationProperties properties, StartupProblems problems) {
        problems.run(() -> configured(properties.secretKeys(), properties, SETTING, KEYS_ARE).ifPresent(SecretKeys::ring));
    }

    private static SecretKeyRing ring(List<String> keys) {
        try {
            return SecretKeyRing.fromBase64(keys);
        } catch (IllegalArgumentException e) {
            throw new StartupException(SETTING + " is not usable: " + e.getMessage() + ".",
                    "Give base64 keys of at least 32 random bytes, for example from: openssl rand -base64 32", e);
        }
    }

    /**
     * The keys configured in {@code setting}; when there are none, empty on the embedded store (the caller then
     * uses the key kept in the data directory), and on DynamoDB a refused start that names the setting: every
     * instance must use the same keys, so one generated per instance would be wrong.
     */
    static Optional<List<String>> configured(List<String> configured, VerificationProperties properties,
                                             String setting, String keysAre) {
        List<String> keys = nonBlank(configured);
        if (!keys.isEmpty()) {
            return Optional.of(keys);
        }
        if (properties.store() == VerificationProperties.StoreKind.DYNAMODB) {
            throw new StartupException("The dynamodb store needs " + setting + ", and it is not set.",
                    "Set " + setting + " (comma-separated " + keysAre + ", current first), the same on every "
                            + "instance. Generate a key with: openssl rand -base64 32");
        }
        return Optional.empty();
    }

    /** {@link KeyFiles#loadOrGenerate}, a file that cannot be used reported as a refused start. */
    public static String loadOrGenerate(Path file, SecureRandom random, String what, boolean announce) {
        try {
            return KeyFiles.loadOrGenerate(file, random, what, announce);
        } catch (KeyFileException e) {
            throw new StartupException(e.getMessage(), e.action(), e);
        }
    }

    public static List<String> nonBlank(List<String> values) {
        return values == null ? List.of() : values.stream().map(String::trim).filter(value -> !value.isEmpty()).toList();
    }
}

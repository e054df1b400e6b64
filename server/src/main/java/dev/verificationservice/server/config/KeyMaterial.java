package dev.verificationservice.server.config;

import dev.verificationservice.security.KeyStrength;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.keys.SecretKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API keys, admin keys and HMAC keys the service runs with. Configured keys always win. In the embedded
 * mode a missing API or HMAC key is generated on first start and kept in the data directory, readable by the
 * owner only ({@link SecretKeys#loadOrGenerate}); the generated API key is printed on the console (standard output, not the log)
 * that one time.
 * In the DynamoDB mode both must be configured: several instances must share them, so generating one per
 * instance would be wrong.
 *
 * <p>Admin keys ({@code VERIFICATION_ADMIN_API_KEYS}) open the operator API only. They are never generated:
 * without them the operator API is off. An admin key lifts lock-outs, so it must be a deliberate choice of
 * whoever runs the service, not a file that appears in the data directory.
 */
public record KeyMaterial(List<String> apiKeys, List<String> adminKeys, SecretKeyRing secretKeys) {

    public static final String API_KEY_FILE = "api-key";
    public static final String SECRET_KEY_FILE = SecretKeys.SECRET_KEY_FILE;
    /** A guessable API key would open the whole API; 24 characters of base64 carry 144 bits. */
    public static final int MIN_API_KEY_LENGTH = 24;
    /** An operator's key id: this prefix and the first 12 hex digits of the key's SHA-256. */
    public static final String ADMIN_KEY_ID_PREFIX = "adm-";
    public static final String APPLICATION_KEY_ID_PREFIX = "app-";
    private static final Logger LOG = LoggerFactory.getLogger(KeyMaterial.class);

    public KeyMaterial {
        apiKeys = List.copyOf(apiKeys);
        adminKeys = List.copyOf(adminKeys);
    }

    @Override
    public String toString() {
        return "KeyMaterial[" + apiKeys.size() + " API key(s), " + adminKeys.size() + " admin key(s), " + secretKeys + "]";
    }

    /**
     * The stable, non-secret id of an admin key, as the audit log records it: {@code adm-} and the first 12 hex
     * digits (48 bits) of the key's SHA-256. It tells which operator key acted; it cannot be turned back into the
     * key, and the key is long and random, so it cannot be guessed from it either.
     */
    public static String adminKeyId(String adminKey) {
        return ADMIN_KEY_ID_PREFIX + HexFormat.of().formatHex(sha256(adminKey), 0, 6);
    }

    /**
     * The same kind of id for an application key ({@code app-} and 12 hex digits): what its Idempotency-Keys are
     * scoped by, so that they belong to the key, not to how a client spells its Authorization header.
     */
    public static String applicationKeyId(String apiKey) {
        return APPLICATION_KEY_ID_PREFIX + HexFormat.of().formatHex(sha256(apiKey), 0, 6);
    }

    /** The SHA-256 of a key's UTF-8 bytes: what keys are compared as. */
    public static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /**
     * The server's keys. Every problem of the configured keys is named in one refused start, with those of the HMAC
     * keys (which the starter's {@link SecretKeys} resolves: the server hands its {@code Verification} the ring
     * resolved here).
     */
    public static KeyMaterial resolve(ServiceProperties server, VerificationProperties verification, SecureRandom random) {
        StartupProblems problems = new StartupProblems();
        check(server, verification, problems);
        SecretKeys.check(verification, problems);
        problems.throwIfAny();
        List<String> apiKeys = SecretKeys.nonBlank(server.apiKeys());
        List<String> adminKeys = SecretKeys.nonBlank(server.adminApiKeys());
        if (apiKeys.isEmpty()) {
            apiKeys = List.of(SecretKeys.loadOrGenerate(verification.dataDir().resolve(API_KEY_FILE), random, "API key",
                    true));
            checkStrength("The API key in " + verification.dataDir().resolve(API_KEY_FILE), apiKeys);
            checkAdminKeys(apiKeys, adminKeys); // an admin key copied from the generated key's file
        }
        checkHumanVerifiedKeys(server.humanVerifiedKeys(), apiKeys);
        if (!adminKeys.isEmpty()) {
            LOG.info("Operator API on (/v1/admin) with {} admin key(s): {}", adminKeys.size(),
                    adminKeys.stream().map(KeyMaterial::adminKeyId).toList());
        }
        return new KeyMaterial(apiKeys, adminKeys, SecretKeys.resolve(verification, random));
    }

    /**
     * What {@link #resolve} refuses in the configured API and admin keys, each problem reported to
     * {@code problems}; no key file is read or written. The settings check runs it before any bean is built.
     */
    public static void check(ServiceProperties server, VerificationProperties verification, StartupProblems problems) {
        List<String> apiKeys = SecretKeys.nonBlank(server.apiKeys());
        List<String> adminKeys = SecretKeys.nonBlank(server.adminApiKeys());
        if (apiKeys.isEmpty() && verification.store() == VerificationProperties.StoreKind.DYNAMODB) {
            problems.add(new StartupException("The dynamodb store needs VERIFICATION_API_KEYS, and it is not set.",
                    "Set VERIFICATION_API_KEYS (comma-separated API keys of " + MIN_API_KEY_LENGTH + " or more random "
                            + "characters), the same on every instance. Generate a key with: "
                            + "openssl rand -base64 32 | tr '+/' '-_' | tr -d '='"));
        }
        problems.run(() -> checkStrength("An API key in VERIFICATION_API_KEYS", apiKeys));
        problems.run(() -> checkStrength("An admin key in VERIFICATION_ADMIN_API_KEYS", adminKeys));
        problems.run(() -> checkAdminKeys(apiKeys, adminKeys));
    }

    /**
     * Every key long enough and not made by hand ({@link KeyStrength}): a length check alone accepted
     * {@code aaaa…a}. The key itself is never in the message, only which setting holds it and why.
     */
    private static void checkStrength(String which, List<String> keys) {
        for (String key : keys) {
            if (key.length() < MIN_API_KEY_LENGTH) {
                throw new StartupException(which + " is shorter than " + MIN_API_KEY_LENGTH + " characters.",
                        "Use long random keys, for example: openssl rand -base64 32 | tr '+/' '-_' | tr -d '='");
            }
            KeyStrength.weaknessOfText(key).ifPresent(weakness -> {
                throw new StartupException(which + " is not random: " + weakness + ".",
                        "Use keys drawn at random, for example: openssl rand -base64 32");
            });
        }
    }

    /** Each key id permitted {@code humanVerified} names an application key: a mistyped id would permit nothing. */
    private static void checkHumanVerifiedKeys(List<String> permitted, List<String> apiKeys) {
        List<String> ids = apiKeys.stream().map(KeyMaterial::applicationKeyId).toList();
        permitted.stream().filter(id -> !ids.contains(id)).findFirst().ifPresent(unknown -> {
            throw new StartupException("VERIFICATION_HUMAN_VERIFIED_KEYS names " + unknown + ", which is no "
                    + "application key's id.", "List application key ids: app- and the first 12 hex digits of the key's SHA-256 "
                    + "(printf %s \"$KEY\" | sha256sum | cut -c1-12).");
        });
        if (!permitted.isEmpty()) {
            LOG.info("Application keys that may send humanVerified: {}", permitted);
        }
    }

    /** No key may be both an API key and an admin key: each key has exactly one role. */
    private static void checkAdminKeys(List<String> apiKeys, List<String> adminKeys) {
        if (adminKeys.stream().anyMatch(apiKeys::contains)) {
            throw new StartupException("A key is in both VERIFICATION_API_KEYS and VERIFICATION_ADMIN_API_KEYS: an "
                    + "application would then hold the operator's powers.",
                    "Give operators their own keys, different from every application key "
                            + "(openssl rand -base64 32), and remove the shared one from one of the two lists.");
        }
    }
}

package dev.verificationservice.server.config;

import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API keys, admin keys and HMAC keys the service runs with. Configured keys always win. In the embedded
 * mode a missing API or HMAC key is generated on first start and kept in the data directory, readable by the
 * owner only; the generated API key is printed on the console (standard output, not the log) that one time.
 * In the DynamoDB mode both must be configured: several instances must share them, so generating one per
 * instance would be wrong.
 *
 * <p>Admin keys ({@code VERIFICATION_ADMIN_API_KEYS}) open the operator API only. They are never generated:
 * without them the operator API is off. An admin key lifts lock-outs, so it must be a deliberate choice of
 * whoever runs the service, not a file that appears in the data directory.
 */
public record KeyMaterial(List<String> apiKeys, List<String> adminKeys, SecretKeyRing secretKeys) {

    public static final String API_KEY_FILE = "api-key";
    public static final String SECRET_KEY_FILE = "secret-key";
    /** A guessable API key would open the whole API; 24 characters of base64 carry 144 bits. */
    public static final int MIN_API_KEY_LENGTH = 24;
    /** An operator's key id: this prefix and the first 12 hex digits of the key's SHA-256. */
    public static final String ADMIN_KEY_ID_PREFIX = "adm-";
    private static final Logger LOG = LoggerFactory.getLogger(KeyMaterial.class);

    public KeyMaterial {
        apiKeys = List.copyOf(apiKeys);
        adminKeys = List.copyOf(adminKeys);
    }

    @Override
    public String toString() {
        return "KeyMaterial[" + apiKeys.size() + " API key(s), " + adminKeys.size() + " admin key(s), " + secretKeys + "]";
    }

    /** True when the operator API is on: at least one admin key is configured. */
    public boolean operatorApiEnabled() {
        return !adminKeys.isEmpty();
    }

    /**
     * The stable, non-secret id of an admin key, as the audit log records it: {@code adm-} and the first 12 hex
     * digits (48 bits) of the key's SHA-256. It tells which operator key acted; it cannot be turned back into the
     * key, and the key is long and random, so it cannot be guessed from it either.
     */
    public static String adminKeyId(String adminKey) {
        return ADMIN_KEY_ID_PREFIX + HexFormat.of().formatHex(sha256(adminKey), 0, 6);
    }

    /** The SHA-256 of a key's UTF-8 bytes: what keys are compared as. */
    public static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    public static KeyMaterial resolve(VerificationProperties properties, SecureRandom random) {
        List<String> apiKeys = nonBlank(properties.apiKeys());
        List<String> adminKeys = nonBlank(properties.adminApiKeys());
        List<String> secretKeys = nonBlank(properties.secretKeys());
        if (properties.store() == VerificationProperties.StoreKind.DYNAMODB) {
            List<String> missing = new ArrayList<>();
            if (apiKeys.isEmpty()) {
                missing.add("VERIFICATION_API_KEYS");
            }
            if (secretKeys.isEmpty()) {
                missing.add("VERIFICATION_SECRET_KEYS");
            }
            if (!missing.isEmpty()) {
                throw new StartupException("The dynamodb store needs " + String.join(" and ", missing)
                        + ", and " + (missing.size() == 1 ? "it is" : "they are") + " not set.",
                        "Set VERIFICATION_API_KEYS (comma-separated API keys) and VERIFICATION_SECRET_KEYS "
                                + "(comma-separated base64 HMAC keys of at least 32 bytes, current first), the same on "
                                + "every instance. Generate a key with: openssl rand -base64 32");
            }
        } else {
            Path dataDir = properties.dataDir();
            if (apiKeys.isEmpty()) {
                apiKeys = List.of(loadOrGenerate(dataDir.resolve(API_KEY_FILE), random, "API key", true));
            }
            if (secretKeys.isEmpty()) {
                secretKeys = List.of(loadOrGenerate(dataDir.resolve(SECRET_KEY_FILE), random, "HMAC key", false));
            }
        }
        if (apiKeys.stream().anyMatch(key -> key.length() < MIN_API_KEY_LENGTH)) {
            throw new StartupException("An API key in VERIFICATION_API_KEYS is shorter than " + MIN_API_KEY_LENGTH
                    + " characters.", "Use long random keys, for example: openssl rand -base64 32");
        }
        checkAdminKeys(apiKeys, adminKeys);
        if (!adminKeys.isEmpty()) {
            LOG.info("Operator API on (/v1/admin) with {} admin key(s): {}", adminKeys.size(),
                    adminKeys.stream().map(KeyMaterial::adminKeyId).toList());
        }
        try {
            return new KeyMaterial(apiKeys, adminKeys, SecretKeyRing.fromBase64(secretKeys));
        } catch (IllegalArgumentException e) {
            throw new StartupException("VERIFICATION_SECRET_KEYS is not usable: " + e.getMessage() + ".",
                    "Give base64 keys of at least 32 random bytes, for example from: openssl rand -base64 32", e);
        }
    }

    /** Admin keys are as long as API keys, and no key may be both: each key has exactly one role. */
    private static void checkAdminKeys(List<String> apiKeys, List<String> adminKeys) {
        if (adminKeys.stream().anyMatch(key -> key.length() < MIN_API_KEY_LENGTH)) {
            throw new StartupException("An admin key in VERIFICATION_ADMIN_API_KEYS is shorter than " + MIN_API_KEY_LENGTH
                    + " characters.", "Use long random keys, for example: openssl rand -base64 32");
        }
        if (adminKeys.stream().anyMatch(apiKeys::contains)) {
            throw new StartupException("A key is in both VERIFICATION_API_KEYS and VERIFICATION_ADMIN_API_KEYS: an "
                    + "application would then hold the operator's powers.",
                    "Give operators their own keys, different from every application key "
                            + "(openssl rand -base64 32), and remove the shared one from one of the two lists.");
        }
    }

    private static String loadOrGenerate(Path file, SecureRandom random, String what, boolean announce) {
        try {
            if (Files.exists(file)) {
                String key = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (key.isEmpty()) {
                    throw new StartupException("The " + what + " file " + file.toAbsolutePath() + " is empty.",
                            "Delete it to have a new " + what + " generated on the next start (codes, devices or "
                                    + "clients that used the old one stop working), or write the key into it.");
                }
                return key;
            }
            createOwnerOnlyDirectory(file.getParent());
            // API keys go into headers, so they use the URL-safe alphabet; HMAC keys use standard base64.
            String key = announce ? new SecureTokens(random).randomToken() : SecretKeyRing.generateBase64Key(random);
            writeOwnerOnly(file, key);
            if (announce) {
                // The key goes to the console only: logs are shipped and kept, and must never hold a key.
                LOG.warn("Generated a new {} and saved it in {} (owner-only). It is printed once on the console "
                        + "(standard output), not in this log; 'cat {}' shows it again.", what, file.toAbsolutePath(),
                        file.toAbsolutePath());
                printOnce(what, file, key);
            } else {
                LOG.info("Generated a new {} in {} (owner-only)", what, file.toAbsolutePath());
            }
            return key;
        } catch (FileAlreadyExistsException e) {
            // Another process created it between our check and our write: use theirs.
            return loadOrGenerate(file, random, what, false);
        } catch (IOException e) {
            throw new StartupException("Cannot read or create " + file.toAbsolutePath() + ": " + e.getMessage(),
                    "Make VERIFICATION_DATA_DIR a directory this user can write, or set VERIFICATION_API_KEYS "
                            + "and VERIFICATION_SECRET_KEYS.", e);
        }
    }

    private static void printOnce(String what, Path file, String key) {
        System.out.println();
        System.out.println("  Verification Service: a new " + what + " was generated and saved in " + file.toAbsolutePath()
                + " (owner-only).");
        System.out.println("  It is shown here this once. Send it as 'Authorization: Bearer <key>':");
        System.out.println();
        System.out.println("    " + key);
        System.out.println();
        System.out.flush();
    }

    /** The data directory holds the keys and the database: only its owner may enter it. */
    private static void createOwnerOnlyDirectory(Path directory) throws IOException {
        if (Files.isDirectory(directory)) {
            return;
        }
        try {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(directory);
        }
    }

    /**
     * Writes the key so that a crash at any moment leaves either no file or the whole key: into an owner-only
     * temporary file, forced to disk, then moved into place atomically (failing if another process got there
     * first), and the directory forced so that the move itself survives a power loss.
     */
    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Files.deleteIfExists(temporary);
        try {
            try {
                Files.createFile(temporary, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(temporary);
            }
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap((content + "\n").getBytes(StandardCharsets.UTF_8)));
                channel.force(true);
            }
            try {
                // ATOMIC_MOVE would replace an existing file; createLink fails instead, so the first writer wins.
                Files.createLink(file, temporary);
            } catch (UnsupportedOperationException e) {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        forceDirectory(file.getParent());
    }

    private static void forceDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not every platform can sync a directory; the key file itself is already on disk.
        }
    }

    private static List<String> nonBlank(List<String> values) {
        return values == null ? List.of() : values.stream().map(String::trim).filter(value -> !value.isEmpty()).toList();
    }
}

package dev.verificationservice.keys;

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
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys kept in files of the data directory, for the embedded mode: read when the file exists, otherwise
 * generated with {@link SecureRandom} and written owner-only, so that a crash at any moment leaves either no
 * file or the whole key, and two processes starting at once end up with the same key. A file that cannot be read
 * or written is a {@link KeyFileException}, which says what to do.
 */
public final class KeyFiles {

    private static final Logger LOG = LoggerFactory.getLogger(KeyFiles.class);

    private KeyFiles() {
    }

    /**
     * The key in {@code file}, generated first when there is none.
     *
     * @param what     what the key is, for messages ("API key", "HMAC key")
     * @param announce an API key, printed once on the console (never the log) so that its owner can use it; an
     *                 HMAC key is never shown
     */
    public static String loadOrGenerate(Path file, SecureRandom random, String what, boolean announce) {
        try {
            if (Files.exists(file)) {
                String key = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (key.isEmpty()) {
                    throw new KeyFileException("The " + what + " file " + file.toAbsolutePath() + " is empty.",
                            "Delete it to have a new " + what + " generated on the next start (codes, devices or "
                                    + "clients that used the old one stop working), or write the key into it.", null);
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
            throw new KeyFileException("Cannot read or create " + file.toAbsolutePath() + ": " + e.getMessage(),
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
     * first), and the directory forced so that the move itself survives a power loss. The temporary file's name is
     * new for every call (not only every process): two threads of one process starting at once must not write into
     * each other's file.
     */
    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Path temporary;
        try {
            temporary = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            temporary = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp");
        }
        try {
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

}

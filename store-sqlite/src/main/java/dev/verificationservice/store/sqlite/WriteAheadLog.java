package dev.verificationservice.store.sqlite;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * The database's write-ahead log ({@code <database>-wal}) as the writer's {@link GroupCommitWriter.Durability}:
 * {@link #force} syncs it to disk, as SQLite's {@code synchronous=FULL} does inside every COMMIT, but on the
 * writer's syncer thread, so the next batch runs meanwhile. A sync of the file makes every frame written to it
 * before the sync began durable, whichever descriptor wrote it (the page cache is the file's, not the
 * descriptor's). SQLite keeps the log while any connection is open (the writer's always is) and, in WAL mode with
 * {@code synchronous=NORMAL}, syncs the log's header itself when it starts reusing the file; should the file ever
 * be replaced (another process changing the journal mode and back), the next force opens the new one.
 */
final class WriteAheadLog implements GroupCommitWriter.Durability, AutoCloseable {

    /**
     * On the writer's connection: COMMIT does not sync; {@link #force} does, before any caller is answered but one
     * answered at its COMMIT ({@link GroupCommitWriter#runUnit}).
     */
    static final String WRITER_PRAGMA = "PRAGMA synchronous=NORMAL";

    private final Path file;
    private FileChannel channel;
    private Object openedKey;

    WriteAheadLog(Path databaseFile) {
        this.file = databaseFile.resolveSibling(databaseFile.getFileName() + "-wal");
    }

    /** The log's file. */
    Path file() {
        return file;
    }

    /** Only on the syncer's thread. */
    @Override
    public void force() throws IOException {
        Object key;
        try {
            key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (NoSuchFileException e) {
            throw new IOException("the write-ahead log " + file + " is missing: the embedded store's files were "
                    + "removed or moved while it ran", e);
        }
        if (channel == null || key == null || !Objects.equals(key, openedKey)) {
            close();
            channel = FileChannel.open(file, StandardOpenOption.READ);
            openedKey = key;
        }
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }
}

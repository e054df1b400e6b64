package dev.verificationservice.server;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the project the server's tests read: the README, whose tour they run, and the API reference. */
public final class ProjectFiles {

    private ProjectFiles() {
    }

    /** The project's README.md, found above the directory the tests run in (the module's or the project's). */
    public static Path readme() {
        Path directory = Path.of("").toAbsolutePath();
        for (int level = 0; level < 4 && directory != null; level++, directory = directory.getParent()) {
            Path candidate = directory.resolve("README.md");
            if (Files.isRegularFile(candidate) && Files.isDirectory(directory.resolve("server"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("README.md of the project not found above " + Path.of("").toAbsolutePath());
    }

    /** docs/api.md, the reference of every call, beside the README. */
    public static Path apiReference() {
        return readme().resolveSibling("docs").resolve("api.md");
    }
}

package dev.verificationservice.testsupport.dynamodb;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where dynalite's command line is. The test-support module installs it ({@code npm ci}, first in the reactor)
 * under {@code test-support/target/dynalite}; every module that starts dynalite (the stores, the starter, the
 * server, the benchmarks, {@code dev/local-dynamodb}) runs with its own directory or the repository root as the
 * working directory, so the install is found by looking there and in each parent, with no setting to pass.
 * The system property {@value #PROPERTY} names another install and then wins.
 */
final class DynaliteCli {

    static final String PROPERTY = "dynalite.cli";
    static final Path INSTALLED = Path.of("test-support", "target", "dynalite", "node_modules", "dynalite", "cli.js");

    private DynaliteCli() {
    }

    /** The CLI named by {@code property} (may be null), else the install found from {@code workingDirectory} up. */
    static Path locate(String property, Path workingDirectory) {
        if (property != null) {
            Path named = Path.of(property).toAbsolutePath();
            if (!Files.isRegularFile(named)) {
                throw new IllegalStateException("dynalite is not installed at " + named + " (set by -D" + PROPERTY
                        + "); give the path of an installed dynalite/cli.js, or leave " + PROPERTY
                        + " unset to use the one the build installs");
            }
            return named;
        }
        Path start = workingDirectory.toAbsolutePath();
        for (Path directory = start; directory != null; directory = directory.getParent()) {
            Path candidate = directory.resolve(INSTALLED);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("dynalite is not installed: no " + INSTALLED + " in " + start
                + " or above it; build with Maven without -DskipTests (mvn verify, or -pl <module> -am), which"
                + " installs it with npm ci in the test-support module, or set -D" + PROPERTY);
    }
}

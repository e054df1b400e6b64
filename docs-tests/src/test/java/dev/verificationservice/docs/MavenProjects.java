package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Maven builds as a reader runs them, outside this build: a copy of the checkout (what a fresh clone holds, without
 * build output), the README's install command run once in it, and new projects in directories of their own whose
 * POMs hold the documentation's blocks. Every build runs {@code mvn} from the PATH, in a process group of its own,
 * with the local repository this build uses; its output goes to a file, so a hang ends at the timeout.
 */
final class MavenProjects {

    /** Where the copies and projects live: this module's target/, so that {@code mvn clean} removes them. */
    static final Path WORK = Markdown.ROOT.resolve("docs-tests/target/maven-projects");
    /** The project's version, as the README's dependency blocks name it. */
    static final String VERSION = System.getProperty("project.version", "");
    /** The sqlite-jdbc version the build tests with (sqlite-jdbc.version of the parent POM). */
    static final String TESTED_SQLITE_JDBC = System.getProperty("sqlite-jdbc.version", "");
    static final String SPRING_BOOT = System.getProperty("spring-boot.version", "");

    /** Bounds a build that hangs; a normal one takes a fraction of it. */
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(30);
    /** Not copied: build output, installed packages, a local store, the repository's history. */
    private static final Set<String> NOT_COPIED = Set.of(".git", "target", "node_modules", "data", ".jqwik-database",
            ".idea");

    private static Path checkout;
    private static boolean installed;

    private MavenProjects() {
    }

    /** What a build printed (standard output and error) and how it ended. */
    record Build(int exitCode, String output) {

        Build succeeded(String what) {
            assertThat(exitCode).as("%s exited %s; it printed:%n%s", what, exitCode, output).isZero();
            return this;
        }
    }

    /** A copy of the checkout as a clone has it, made once for all the tests of this run. */
    static synchronized Path checkout() {
        if (checkout == null) {
            checkout = copyOfTheCheckout(directory("checkout"));
        }
        return checkout;
    }

    /** The README's install command, run once in {@link #checkout()}: the modules are in the local repository. */
    static synchronized void installed() {
        if (installed) {
            return;
        }
        Markdown.Block install = Markdown.readme().blocks("sh").stream()
                .filter(block -> block.text().contains("mvn ") && block.text().contains(" install ")).findFirst()
                .orElseThrow(() -> new AssertionError("README.md shows no sh block with mvn ... install"));
        bash(checkout(), Map.of(), install.text()).succeeded(install.where());
        installed = true;
    }

    /** A new directory under {@link #WORK} whose name starts with {@code name}. */
    static Path directory(String name) {
        try {
            Files.createDirectories(WORK);
            return Files.createTempDirectory(WORK, name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new project: {@code pom} as its pom.xml, and each source file at its path under src/main/java. */
    static Path project(String name, String pom, Map<String, String> sources) {
        Path project = directory(name);
        try {
            Files.writeString(project.resolve("pom.xml"), pom);
            for (Map.Entry<String, String> source : sources.entrySet()) {
                Path file = project.resolve("src/main/java").resolve(source.getKey());
                Files.createDirectories(file.getParent());
                Files.writeString(file, source.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return project;
    }

    /** A source file of this module's test resources (under new-project/), as a project's source. */
    static String source(String name) {
        try (var in = MavenProjects.class.getResourceAsStream("/new-project/" + name)) {
            assertThat(in).as("test resource new-project/%s", name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first {@code xml} block of {@code document} that contains {@code text}, as written. */
    static String xmlBlock(Markdown document, String text) {
        return document.blocks("xml").stream().map(Markdown.Block::text).filter(block -> block.contains(text))
                .findFirst().orElseThrow(() -> new AssertionError(document.file() + " shows no xml block with " + text));
    }

    /** Compiles {@code project} and lists its class path (test scope aside) in target/classpath.txt. */
    static List<Path> compile(Path project) {
        mvn(project, "compile", "dependency:build-classpath", "-Dmdep.outputFile=target/classpath.txt",
                "-Dmdep.includeScope=runtime").succeeded("the build of " + project);
        try {
            String listed = Files.readString(project.resolve("target/classpath.txt")).strip();
            List<Path> classPath = new ArrayList<>();
            classPath.add(project.resolve("target/classes"));
            for (String entry : listed.split(java.io.File.pathSeparator)) {
                classPath.add(Path.of(entry));
            }
            return classPath;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code mainClass} of a compiled project on its class path. */
    static Build java(Path project, List<Path> classPath, String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", String.join(java.io.File.pathSeparator, classPath.stream().map(Path::toString)
                .toList()), mainClass));
        command.addAll(List.of(args));
        return run(project, Map.of(), command);
    }

    static Build mvn(Path directory, String... args) {
        List<String> command = new ArrayList<>(List.of("mvn", "-B", "-ntp"));
        command.addAll(List.of(args));
        return run(directory, Map.of(), command);
    }

    /** Runs {@code script} as bash -e would, with {@code environment} added. */
    static Build bash(Path directory, Map<String, String> environment, String script) {
        return run(directory, environment, List.of("bash", "-e", "-o", "pipefail", "-c", script));
    }

    private static Build run(Path directory, Map<String, String> environment, List<String> command) {
        try {
            Path output = Files.createTempFile(WORK, "build", ".log");
            List<String> inItsOwnGroup = new ArrayList<>(List.of("setsid"));
            inItsOwnGroup.addAll(command);
            ProcessBuilder builder = new ProcessBuilder(inItsOwnGroup).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            // The nested builds read and write the local repository this build uses, wherever it is.
            String localRepository = System.getProperty("maven.repo.local", "");
            if (!localRepository.isBlank()) {
                builder.environment().merge("MAVEN_OPTS", "-Dmaven.repo.local=" + localRepository,
                        (given, added) -> given + " " + added);
            }
            Process process = builder.start();
            try {
                process.getOutputStream().close();
                if (!process.waitFor(BUILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new AssertionError(command + " still running after " + BUILD_TIMEOUT + "; it printed:\n"
                            + Files.readString(output));
                }
                return new Build(process.exitValue(), Files.readString(output));
            } finally {
                ShellBlocks.endProcessGroup(process.pid());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static Path copyOfTheCheckout(Path target) {
        try {
            Files.walkFileTree(Markdown.ROOT, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes)
                        throws IOException {
                    if (!directory.equals(Markdown.ROOT) && NOT_COPIED.contains(directory.getFileName().toString())) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    Files.createDirectories(target.resolve(Markdown.ROOT.relativize(directory).toString()));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    if (attributes.isRegularFile()) {
                        Files.copy(file, target.resolve(Markdown.ROOT.relativize(file).toString()),
                                StandardCopyOption.COPY_ATTRIBUTES);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }
}

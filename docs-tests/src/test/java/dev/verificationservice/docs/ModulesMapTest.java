package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module table of docs/architecture.md is a map of the code, so it must stay one: every Maven module has its row,
 * under its artifact id; every class a row names (in backticks) is in that module or one it depends on, and every
 * package of the module's main code is named in its row; a class named outside the table exists somewhere in the
 * repository.
 */
class ModulesMapTest {

    private static final Path MAP = Markdown.ROOT.resolve("docs/architecture.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    /** {@code CodeService}, {@code keys.KeyFiles}; not {@code COMMIT} or {@code TOTP}. */
    private static final Pattern CLASS = Pattern.compile("(?:[a-z][a-z0-9]*\\.)*[A-Z][a-z][A-Za-z0-9]*");
    private static final Pattern PACKAGE = Pattern.compile("[a-z][a-z0-9]*(?:\\.[a-z][a-z0-9]*)*");
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern PROJECT_DEPENDENCY = Pattern.compile("<artifactId>(verification-[^<]+)</artifactId>");

    record Row(String module, String artifactId, String text) {
    }

    @Test
    void everyModuleHasARowUnderItsArtifactId() throws IOException {
        Map<String, Row> rows = rows();
        for (String module : modules()) {
            assertThat(rows).as("docs/architecture.md's rows").containsKey(module);
            assertThat(rows.get(module).artifactId()).as(module).isEqualTo(artifactId(module));
        }
    }

    @Test
    void everyClassARowNamesIsInItsModuleOrOneItDependsOn() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Row row : rows().values()) {
            Set<String> reachable = reachable(row.module());
            for (String name : codeIn(row.text())) {
                if (CLASS.matcher(name).matches() && reachable.stream().noneMatch(module -> holds(module, name))) {
                    missing.add(row.module() + ": " + name);
                }
            }
        }
        assertThat(missing).as("classes docs/architecture.md names where they are not").isEmpty();
    }

    @Test
    void everyPackageOfAModuleIsNamedInItsRow() throws IOException {
        List<String> unnamed = new ArrayList<>();
        for (Row row : rows().values()) {
            Set<String> named = new TreeSet<>();
            for (String name : codeIn(row.text())) {
                if (PACKAGE.matcher(name).matches()) {
                    named.add(name);
                } else if (CLASS.matcher(name).matches() && name.contains(".")) {
                    named.add(name.substring(0, name.lastIndexOf('.')));
                }
            }
            for (String pkg : packages(row.module())) {
                if (!pkg.isEmpty() && !named.contains(pkg)) {
                    unnamed.add(row.module() + ": " + pkg);
                }
            }
        }
        assertThat(unnamed).as("packages docs/architecture.md does not name").isEmpty();
    }

    @Test
    void everyClassNamedOutsideTheTableExists() throws IOException {
        List<String> missing = new ArrayList<>();
        for (String line : Files.readAllLines(MAP)) {
            if (!line.startsWith("|")) {
                for (String name : codeIn(line)) {
                    if (CLASS.matcher(name).matches() && modules().stream().noneMatch(module -> holds(module, name))) {
                        missing.add(name);
                    }
                }
            }
        }
        assertThat(missing).as("classes docs/architecture.md names that no module holds").isEmpty();
    }

    /** The table's rows by module folder: {@code | `core` (`verification-core`) | ... |}. */
    private static Map<String, Row> rows() throws IOException {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(MAP)) {
            String[] cells = line.split("\\|");
            if (line.startsWith("| `") && cells.length >= 3) {
                List<String> heading = codeIn(cells[1]);
                rows.put(heading.get(0), new Row(heading.get(0), heading.size() > 1 ? heading.get(1) : null, cells[2]));
            }
        }
        assertThat(rows).as("the module table of docs/architecture.md").isNotEmpty();
        return rows;
    }

    private static List<String> codeIn(String text) {
        List<String> names = new ArrayList<>();
        Matcher code = CODE.matcher(text);
        while (code.find()) {
            names.add(code.group(1));
        }
        return names;
    }

    /** The root pom's modules, those of its profiles included. */
    private static List<String> modules() {
        List<String> modules = new ArrayList<>();
        Matcher module = MODULE.matcher(Markdown.text(Markdown.ROOT.resolve("pom.xml")));
        while (module.find()) {
            modules.add(module.group(1));
        }
        return modules;
    }

    /** The module's own artifact id: the first one after its parent's. */
    private static String artifactId(String module) {
        String pom = Markdown.text(Markdown.ROOT.resolve(module).resolve("pom.xml"));
        Matcher id = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(pom.substring(pom.indexOf("</parent>")));
        assertThat(id.find()).as("the artifact id of " + module).isTrue();
        return id.group(1);
    }

    /** The module and every module of the project it depends on, in any scope, transitively. */
    private static Set<String> reachable(String start) {
        Map<String, String> byArtifactId = new LinkedHashMap<>();
        modules().forEach(module -> byArtifactId.put(artifactId(module), module));
        Set<String> reached = new LinkedHashSet<>();
        Deque<String> next = new ArrayDeque<>(List.of(start));
        while (!next.isEmpty()) {
            String module = next.pop();
            Path pom = Markdown.ROOT.resolve(module).resolve("pom.xml");
            if (reached.add(module) && Files.exists(pom)) {
                Matcher dependency = PROJECT_DEPENDENCY.matcher(Markdown.text(pom));
                while (dependency.find()) {
                    String depended = byArtifactId.get(dependency.group(1));
                    if (depended != null) {
                        next.push(depended);
                    }
                }
            }
        }
        return reached;
    }

    /** Whether the module's sources, main or test, hold the class ({@code keys.KeyFiles}: in a package ending so). */
    private static boolean holds(String module, String name) {
        String file = "/" + name.replace('.', '/') + ".java";
        return javaFiles(module).stream().anyMatch(path -> path.toString().endsWith(file));
    }

    /** The packages of the module's main code, named from its root package (that one as the empty name). */
    private static Set<String> packages(String module) {
        Path main = Markdown.ROOT.resolve(module).resolve("src/main/java");
        Set<String> packages = new TreeSet<>();
        javaFiles(module).stream().filter(path -> path.startsWith(main))
                .forEach(path -> packages.add(main.relativize(path.getParent()).toString().replace('/', '.')));
        if (packages.isEmpty()) {
            return packages;
        }
        String root = packages.stream().reduce(ModulesMapTest::commonPackage).orElseThrow();
        Set<String> relative = new TreeSet<>();
        packages.forEach(pkg -> relative.add(pkg.equals(root) ? "" : pkg.substring(root.length() + 1)));
        return relative;
    }

    private static String commonPackage(String one, String other) {
        String[] a = one.split("\\.");
        String[] b = other.split("\\.");
        int same = 0;
        while (same < Math.min(a.length, b.length) && a[same].equals(b[same])) {
            same++;
        }
        return String.join(".", List.of(a).subList(0, same));
    }

    private static List<Path> javaFiles(String module) {
        List<Path> files = new ArrayList<>();
        for (String sources : List.of("src/main/java", "src/test/java")) {
            Path directory = Markdown.ROOT.resolve(module).resolve(sources);
            if (Files.isDirectory(directory)) {
                try (Stream<Path> walk = Files.walk(directory)) {
                    walk.filter(path -> path.toString().endsWith(".java")).forEach(files::add);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return files;
    }

}

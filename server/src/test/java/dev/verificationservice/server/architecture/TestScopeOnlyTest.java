package dev.verificationservice.server.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The test libraries reach no product jar: every module that ships something takes them in test scope, so
 * Maven never puts them on a product's runtime class path. ArchitectureTest checks the classes; this checks
 * the poms, where a missing {@code <scope>} would make the dependency a compile one. A new module counts as a
 * product until it is listed here as shipping nothing.
 */
class TestScopeOnlyTest {

    private static final Set<String> TEST_LIBRARIES = Set.of("verification-test-support",
            "verification-store-contract-tests");
    /** The test libraries themselves, the documentation tests and the benchmarks: no jar of theirs ships. */
    private static final Set<String> SHIPS_NOTHING = Set.of("test-support", "store-contract-tests", "docs-tests",
            "benchmarks");

    @Test
    void everyProductModuleTakesTheTestLibrariesInTestScopeOnly() throws Exception {
        Path root = repositoryRoot();
        List<String> modules = elementTexts(parse(root.resolve("pom.xml")), "module");
        assertThat(modules).contains("test-support", "core", "store-dynamodb", "server");

        for (String module : modules) {
            if (!SHIPS_NOTHING.contains(module)) {
                assertThat(testLibrariesOutsideTestScope(root.resolve(module).resolve("pom.xml")))
                        .as("test libraries outside test scope in %s/pom.xml", module).isEmpty();
            }
        }
    }

    @Test
    void aTestLibraryWithoutTestScopeIsFound(@TempDir Path directory) throws Exception {
        Path pom = directory.resolve("pom.xml");
        Files.writeString(pom, """
                <project>
                  <dependencies>
                    <dependency><artifactId>verification-test-support</artifactId></dependency>
                    <dependency><artifactId>verification-store-contract-tests</artifactId><scope>test</scope></dependency>
                    <dependency><artifactId>verification-core</artifactId></dependency>
                  </dependencies>
                </project>
                """);

        assertThat(testLibrariesOutsideTestScope(pom)).containsExactly("verification-test-support");
    }

    /** The artifactIds of the test libraries this pom depends on in a scope other than test. */
    private static List<String> testLibrariesOutsideTestScope(Path pom) throws Exception {
        List<String> found = new ArrayList<>();
        NodeList dependencies = parse(pom).getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            String artifactId = childText(dependency, "artifactId");
            if (TEST_LIBRARIES.contains(artifactId) && !"test".equals(childText(dependency, "scope"))) {
                found.add(artifactId);
            }
        }
        return found;
    }

    private static String childText(Element element, String name) {
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element named && named.getTagName().equals(name)) {
                return named.getTextContent().trim();
            }
        }
        return null;
    }

    private static List<String> elementTexts(Document document, String name) {
        NodeList elements = document.getElementsByTagName(name);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < elements.getLength(); i++) {
            texts.add(elements.item(i).getTextContent().trim());
        }
        return texts;
    }

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
    }

    /** The repository root: the tests run in the server's directory. */
    private static Path repositoryRoot() throws IOException {
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            if (Files.isRegularFile(directory.resolve("test-support/pom.xml"))) {
                return directory;
            }
        }
        throw new IOException("no repository root (with test-support/pom.xml) above " + Path.of("").toAbsolutePath());
    }
}

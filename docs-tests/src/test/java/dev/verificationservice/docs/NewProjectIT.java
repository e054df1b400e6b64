package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A new project's first hour, as the README tells it: the README's install command in a clone (a copy of this
 * checkout), then a project of its own whose POM holds the README's two {@code <dependency>} blocks as written,
 * against the local repository only. It compiles the README's two examples as pasted, starts the starter (on the
 * embedded store, one code sent) and builds the client.
 */
class NewProjectIT {

    @Test
    void aNewProjectBuildsAndRunsOnTheReadmesDependencyBlocksAfterTheInstall() {
        Markdown readme = Markdown.readme();
        String starter = MavenProjects.xmlBlock(readme, "<artifactId>verification-spring-boot-starter</artifactId>");
        String client = MavenProjects.xmlBlock(readme, "<artifactId>verification-client</artifactId>");
        assertThat(starter + client).as("the README's blocks name this build's version")
                .contains("<version>" + MavenProjects.VERSION + "</version>").doesNotContain("SNAPSHOT");
        MavenProjects.installed();

        Path project = MavenProjects.project("new-project", pom(starter + client), Map.of(
                "example/StarterMain.java", MavenProjects.source("StarterMain.java"),
                "example/ClientMain.java", MavenProjects.source("ClientMain.java"),
                "EmailConfirmation.java", javaBlock(readme, "class EmailConfirmation"),
                "SignUpFlow.java", javaBlock(readme, "class SignUpFlow")));
        List<Path> classPath = MavenProjects.compile(project);

        MavenProjects.Build started = MavenProjects.java(project, classPath, "example.StarterMain",
                "--verification.data-dir=" + project.resolve("data")).succeeded("the starter's start");
        assertThat(started.output()).contains("started on sqlite-jdbc " + MavenProjects.TESTED_SQLITE_JDBC
                + ", code issued: true");
        MavenProjects.Build built = MavenProjects.java(project, classPath, "example.ClientMain")
                .succeeded("the client's build");
        assertThat(built.output()).contains("client built: dev.verificationservice.client.VerificationClient");
    }

    private static String javaBlock(Markdown document, String containing) {
        return document.blocks("java").stream().map(Markdown.Block::text).filter(text -> text.contains(containing))
                .findFirst().orElseThrow(() -> new AssertionError("README.md shows no java block with " + containing));
    }

    /** The smallest POM of a plain project (no Spring Boot parent), with the plugins at the versions this build pins. */
    private static String pom(String dependencies) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>new-project</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>17</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                  <dependencies>
                %s
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-compiler-plugin</artifactId>
                        <version>%s</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-dependency-plugin</artifactId>
                        <version>%s</version>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(dependencies, System.getProperty("maven-compiler-plugin.version"),
                System.getProperty("maven-dependency-plugin.version"));
    }
}

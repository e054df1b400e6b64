package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A host application built on Spring Boot's parent POM (spring-boot-starter-parent at this build's Spring Boot
 * version) with the README's starter block, after the README's install: which sqlite-jdbc Spring Boot's
 * dependency management gives it, that the start then fails naming that version, the tested one and the
 * property, and that with the property set as docs/embedding.md shows it starts on the tested driver.
 */
class SpringBootParentIT {

    private static final Pattern DRIVER_JAR = Pattern.compile("sqlite-jdbc-([0-9][^/\\\\]*)\\.jar$");

    @Test
    void onSpringBootsDefaultsTheHostGetsAnOlderDriverAndItsStartSaysWhatToSet() {
        Host host = host("");
        System.out.println("[spring-boot-parent] Spring Boot " + MavenProjects.SPRING_BOOT
                + "'s dependency management gives the host sqlite-jdbc " + host.driver());
        assertThat(host.driver()).as("the driver under Spring Boot's dependency management")
                .isNotEqualTo(MavenProjects.TESTED_SQLITE_JDBC);

        MavenProjects.Build start = host.start();
        assertThat(start.exitCode()).as("the start on sqlite-jdbc %s; it printed:%n%s", host.driver(), start.output())
                .isNotZero();
        assertThat(start.output())
                .contains("needs org.xerial:sqlite-jdbc " + MavenProjects.TESTED_SQLITE_JDBC + " or newer")
                .contains("the class path has " + host.driver())
                .contains("<sqlite-jdbc.version>" + MavenProjects.TESTED_SQLITE_JDBC + "</sqlite-jdbc.version>");
    }

    @Test
    void withThePropertyAsDocumentedTheHostStartsOnTheTestedDriver() {
        String documented = MavenProjects.xmlBlock(Markdown.read(Markdown.ROOT.resolve("docs/embedding.md")),
                "<sqlite-jdbc.version>");
        assertThat(MavenProjects.xmlBlock(Markdown.readme(), "<sqlite-jdbc.version>"))
                .as("the README shows the same block as docs/embedding.md").isEqualTo(documented);
        Host host = host(documented);
        assertThat(host.driver()).isEqualTo(MavenProjects.TESTED_SQLITE_JDBC);

        MavenProjects.Build start = host.start().succeeded("the start with the documented property");
        assertThat(start.output()).contains("started on sqlite-jdbc " + MavenProjects.TESTED_SQLITE_JDBC
                + ", code issued: true");
    }

    /** A compiled host application, the sqlite-jdbc version on its class path, and its start. */
    private record Host(Path project, List<Path> classPath, String driver) {

        MavenProjects.Build start() {
            return MavenProjects.java(project, classPath, "example.StarterMain",
                    "--verification.data-dir=" + project.resolve("data"));
        }
    }

    private static Host host(String properties) {
        String starter = MavenProjects.xmlBlock(Markdown.readme(),
                "<artifactId>verification-spring-boot-starter</artifactId>");
        MavenProjects.installed();
        Path project = MavenProjects.project("spring-boot-parent", """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <parent>
                    <groupId>org.springframework.boot</groupId>
                    <artifactId>spring-boot-starter-parent</artifactId>
                    <version>%s</version>
                    <relativePath/>
                  </parent>
                  <groupId>example</groupId>
                  <artifactId>host</artifactId>
                  <version>1</version>
                %s
                  <dependencies>
                %s
                  </dependencies>
                </project>
                """.formatted(MavenProjects.SPRING_BOOT, properties, starter),
                Map.of("example/StarterMain.java", MavenProjects.source("StarterMain.java")));
        List<Path> classPath = MavenProjects.compile(project);
        String driver = classPath.stream().map(path -> DRIVER_JAR.matcher(path.getFileName().toString()))
                .filter(Matcher::find).map(matcher -> matcher.group(1)).findFirst()
                .orElseThrow(() -> new AssertionError("no sqlite-jdbc on the host's class path: " + classPath));
        return new Host(project, classPath, driver);
    }
}

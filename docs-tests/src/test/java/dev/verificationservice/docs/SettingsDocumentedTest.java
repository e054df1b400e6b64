package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every setting the service binds is in docs/configuration.md: each component of every
 * {@code @ConfigurationProperties} record of the starter and the server ({@code VerificationProperties},
 * {@code ServiceProperties}, ...; nested records followed) as its environment variable in backticks, and a map of
 * settings (the message templates) as its property prefix.
 */
class SettingsDocumentedTest {

    private static final Pattern PROPERTIES = Pattern.compile(
            "@ConfigurationProperties\\(prefix = \"([a-z.-]+)\"\\)\\s*public record (\\w+)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");

    /** A class that binds settings, and the prefix it binds under. */
    record Bound(Class<?> type, String prefix) {
    }

    @Test
    void everySettingOfTheStarterAndTheServerIsDocumented() throws IOException {
        List<Bound> bound = bound();
        String page = Files.readString(Markdown.ROOT.resolve("docs/configuration.md"));

        assertThat(bound).extracting(each -> each.type().getSimpleName())
                .contains("VerificationProperties", "ServiceProperties", "WebhookProperties", "LoginProperties");
        List<String> settings = new ArrayList<>();
        bound.forEach(each -> settings.addAll(settings(each.type(), each.prefix())));
        assertThat(settings).as("settings bound").hasSizeGreaterThan(40);
        assertThat(undocumented(settings, page)).as("settings docs/configuration.md does not name").isEmpty();
    }

    /** A settings record for the test below: two leaves, a nested record and a map. */
    record Sample(String host, Nested dynamodb, Map<String, String> templates) {
        record Nested(Duration callTimeout, int maxAttempts) {
        }
    }

    @Test
    void aSettingMissingFromThePageIsReported() {
        List<String> settings = settings(Sample.class, "verification");

        assertThat(settings).containsExactly("VERIFICATION_HOST", "VERIFICATION_DYNAMODB_CALL_TIMEOUT",
                "VERIFICATION_DYNAMODB_MAX_ATTEMPTS", "verification.templates");
        assertThat(undocumented(settings, "| `VERIFICATION_HOST` | x |\n| `VERIFICATION_DYNAMODB_MAX_ATTEMPTS` | y |\n"
                + "VERIFICATION_DYNAMODB_CALL_TIMEOUT outside backticks, and `verification.templates.<key>`"))
                .containsExactly("VERIFICATION_DYNAMODB_CALL_TIMEOUT");
    }

    /** The settings a record binds under {@code prefix}: leaves as environment variables, maps as properties. */
    static List<String> settings(Class<?> type, String prefix) {
        List<String> settings = new ArrayList<>();
        for (RecordComponent component : type.getRecordComponents()) {
            String property = prefix + "." + kebab(component.getName());
            Class<?> value = component.getType();
            if (value.isRecord() && value.getPackageName().startsWith("dev.verificationservice")) {
                settings.addAll(settings(value, property));
            } else if (Map.class.isAssignableFrom(value)) {
                settings.add(property);
            } else {
                settings.add(property.replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT));
            }
        }
        return settings;
    }

    /** The settings the page does not name: a variable in backticks of its own, a property as a prefix. */
    static List<String> undocumented(List<String> settings, String page) {
        return settings.stream().filter(setting -> setting.contains(".") ? !page.contains("`" + setting + ".")
                : !page.contains("`" + setting + "`")).toList();
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** Every {@code @ConfigurationProperties} record of the starter's and the server's main code. */
    private static List<Bound> bound() {
        List<Bound> bound = new ArrayList<>();
        for (String module : List.of("spring-boot-starter", "server")) {
            for (Path file : Markdown.writtenFiles(Markdown.ROOT.resolve(module).resolve("src/main/java"),
                    name -> name.endsWith(".java"))) {
                String source = Markdown.text(file);
                Matcher properties = PROPERTIES.matcher(source);
                Matcher pkg = PACKAGE.matcher(source);
                if (properties.find() && pkg.find()) {
                    bound.add(new Bound(load(pkg.group(1) + "." + properties.group(2)), properties.group(1)));
                }
            }
        }
        return bound;
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(name + " is not on the docs tests' class path", e);
        }
    }

}

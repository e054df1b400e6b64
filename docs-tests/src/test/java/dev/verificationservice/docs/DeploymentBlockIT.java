package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/deployment.md's blocks that start the service on AWS, run as written on this machine: the {@code create-table}
 * block, then every line of the CloudFormation block but the {@code aws} ones (which need an account; the template
 * and its policy are checked by DynamoDbTemplateTest and IamActionsTest), with the executable jar the build made.
 * Only what belongs to AWS is swapped: the DynamoDB endpoint (dynalite behind the test support's transaction
 * emulation) and credentials, TTL not required (dynalite has none), and SES's SMTP host, port and certificate for
 * GreenMail's (SMTPS on a free port, a certificate made here for 127.0.0.1 that the service's JVM is told to trust);
 * the SES credentials the block reads are GreenMail's user. The service must become ready, take a code by email,
 * deliver it to GreenMail, and verify it.
 *
 * <p>An integration test: the executable jar exists only after {@code package}.
 */
class DeploymentBlockIT {

    private static final Duration READY_WITHIN = Duration.ofMinutes(3);
    private static final long TIMEOUT_SECONDS = 180;
    private static final String SMTP_USER = "ses-smtp-user";
    private static final String SMTP_PASSWORD = "ses-smtp-password-for-the-test";
    private static final String STORE_PASSWORD = "changeit";
    /** The lines of a block the test runs: environment, the jar; blank lines and comments aside. */
    private static final Pattern EXPORT = Pattern.compile("^export\\s+.*");
    private static final Pattern JAVA = Pattern.compile("^java -jar (\\S+)(.*?)\\s*(#.*)?$");
    private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    @TempDir
    static Path directory;

    private static GreenMail greenMail;
    private static Path trustStore;

    @BeforeAll
    static void startGreenMailWithACertificateFor127001() throws Exception {
        Path keyStore = directory.resolve("greenmail.p12");
        keytool("-genkeypair", "-alias", "greenmail", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-keystore", keyStore.toString(),
                "-storetype", "PKCS12", "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        Path certificate = directory.resolve("greenmail.pem");
        keytool("-exportcert", "-rfc", "-alias", "greenmail", "-keystore", keyStore.toString(),
                "-storepass", STORE_PASSWORD, "-file", certificate.toString());
        trustStore = directory.resolve("trust.p12");
        keytool("-importcert", "-noprompt", "-alias", "greenmail", "-file", certificate.toString(),
                "-keystore", trustStore.toString(), "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        // GreenMail's TLS takes its key from this file (read once, when its first TLS server starts).
        System.setProperty("greenmail.tls.keystore.file", keyStore.toString());
        System.setProperty("greenmail.tls.keystore.password", STORE_PASSWORD);
        greenMail = new GreenMail(ServerSetupTest.SMTPS.dynamicPort());
        greenMail.start();
        greenMail.setUser("no-reply@example.com", SMTP_USER, SMTP_PASSWORD);
    }

    @AfterAll
    static void stopGreenMail() {
        if (greenMail != null) {
            greenMail.stop();
        }
    }

    @Test
    void theAwsBlockStartsAsWrittenAndDeliversACodeByEmail() throws Exception {
        Markdown deployment = Markdown.read(Markdown.ROOT.resolve("docs/deployment.md"));
        Markdown.Block createTable = blockWith(deployment, " create-table");
        Markdown.Block service = blockWith(deployment, "aws cloudformation deploy");
        Path checkout = checkoutWithTheJar();

        Process table = start(parse(createTable), checkout, "create-table");
        assertThat(table.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("create-table ended").isTrue();
        assertThat(table.exitValue()).as("create-table's exit code; it printed:%n%s", printed("create-table"))
                .isZero();

        Parsed block = parse(service);
        assertThat(block.skipped()).as("the lines that need an AWS account").allMatch(line -> line.startsWith("aws "))
                .hasSize(3);
        Process server = start(block, checkout, "service");
        try {
            int port = awaitReady(server);
            String apiKey = block.environment().get("VERIFICATION_API_KEYS");
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> sent = post(http, port, apiKey, "/v1/codes", "{\"userId\":\"deploy-user\","
                    + "\"codeType\":\"EMAIL_VERIFICATION\",\"deliveryMethod\":\"EMAIL\","
                    + "\"deliveryTarget\":\"ada@example.com\"}");
            assertThat(sent.statusCode()).as(sent.body()).isEqualTo(202);

            assertThat(greenMail.waitForIncomingEmail(30_000, 1)).as("the email arrived").isTrue();
            MimeMessage message = greenMail.getReceivedMessagesForDomain("example.com")[0];
            assertThat(message.getFrom()[0].toString()).isEqualTo("no-reply@example.com");
            Matcher code = Pattern.compile("\\b([0-9]{6})\\b").matcher(GreenMailUtil.getBody(message));
            assertThat(code.find()).as("a code in the email").isTrue();
            HttpResponse<String> verified = post(http, port, apiKey, "/v1/codes/verify", "{\"code\":\""
                    + code.group(1) + "\",\"userId\":\"deploy-user\",\"codeType\":\"EMAIL_VERIFICATION\"}");
            assertThat(verified.body()).as("the verification").contains("\"valid\":true");
        } finally {
            server.destroy();
            if (!server.waitFor(60, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    /** A block of the service part: its environment (as bash makes it), the jar, its arguments, the lines left out. */
    record Parsed(Map<String, String> environment, String jar, List<String> arguments, List<String> skipped) {
    }

    /**
     * Reads {@code block}: its {@code export} lines are run by bash, which prints the environment they make; the one
     * {@code java -jar} line is the command; {@code aws} lines are left out; any other line fails the test, so that
     * a line added to the block is either run here or said to be left out.
     */
    private static Parsed parse(Markdown.Block block) throws IOException, InterruptedException {
        List<String> exports = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        Optional<Matcher> java = Optional.empty();
        for (String line : logicalLines(block.text())) {
            Matcher command = JAVA.matcher(line);
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            } else if (EXPORT.matcher(line).matches()) {
                exports.add(line);
            } else if (line.startsWith("aws ")) {
                skipped.add(line);
            } else if (command.matches() && java.isEmpty()) {
                java = Optional.of(command);
            } else {
                throw new AssertionError(block.where() + ": a line this test neither runs nor leaves out: " + line);
            }
        }
        Matcher command = java.orElseThrow(() -> new AssertionError(block.where() + ": no java -jar line"));
        List<String> arguments = List.of(command.group(2).trim().split("\\s+")).stream()
                .filter(argument -> !argument.isEmpty()).toList();
        return new Parsed(environmentOf(block, exports), command.group(1), arguments, skipped);
    }

    /** The block's lines, a line ending in a backslash joined with the next, as the shell reads them. */
    private static List<String> logicalLines(String text) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.lines().toList()) {
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                lines.add(current.append(line).toString().strip());
                current.setLength(0);
            }
        }
        return lines;
    }

    /**
     * What the {@code export} lines leave in the environment, run by bash as a reader's shell would (the keys drawn
     * by {@code openssl}), with the SES credentials the block expects set beforehand.
     */
    private static Map<String, String> environmentOf(Markdown.Block block, List<String> exports)
            throws IOException, InterruptedException {
        Path output = Files.createTempFile(directory, "environment", ".txt");
        ProcessBuilder bash = new ProcessBuilder("bash", "-e", "-o", "pipefail", "-c",
                String.join("\n", exports) + "\nenv -0").redirectErrorStream(false).redirectOutput(output.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Map<String, String> environment = bash.environment();
        environment.clear();
        environment.put("PATH", System.getenv("PATH"));
        environment.put("SES_SMTP_USERNAME", SMTP_USER);
        environment.put("SES_SMTP_PASSWORD", SMTP_PASSWORD);
        Process process = bash.start();
        assertThat(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("the export lines of %s ran", block.where()).isZero();
        Map<String, String> made = new HashMap<>();
        for (String entry : Files.readString(output, StandardCharsets.UTF_8).split("\0")) {
            int equals = entry.indexOf('=');
            if (equals > 0) {
                made.put(entry.substring(0, equals), entry.substring(equals + 1));
            }
        }
        List.of("PWD", "SHLVL", "_", "OLDPWD").forEach(made::remove);
        return made;
    }

    /** The block's command in {@code checkout}, with the AWS-specific settings swapped for this machine's. */
    private static Process start(Parsed block, Path checkout, String name) throws IOException {
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-jar", block.jar()));
        command.addAll(block.arguments());
        ProcessBuilder builder = new ProcessBuilder(command).directory(checkout.toFile()).redirectErrorStream(true)
                .redirectOutput(directory.resolve(name + ".log").toFile());
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.putAll(block.environment());
        environment.put("VERIFICATION_DYNAMODB_ENDPOINT", DYNALITE.get().transactional().endpoint().toString());
        environment.put("VERIFICATION_DYNAMODB_REQUIRE_TTL", "false");
        environment.put("AWS_ACCESS_KEY_ID", "test");
        environment.put("AWS_SECRET_ACCESS_KEY", "test");
        environment.put("SERVER_PORT", "0");
        if (environment.containsKey("VERIFICATION_SMTP_HOST")) {
            assertThat(environment.get("VERIFICATION_SMTP_HOST")).startsWith("email-smtp.");
            environment.put("VERIFICATION_SMTP_HOST", "127.0.0.1");
            environment.put("VERIFICATION_SMTP_PORT", Integer.toString(greenMail.getSmtps().getPort()));
            environment.put("JAVA_TOOL_OPTIONS", "-Djavax.net.ssl.trustStore=" + trustStore
                    + " -Djavax.net.ssl.trustStorePassword=" + STORE_PASSWORD);
        }
        return builder.start();
    }

    /** A directory laid out as the repository, holding the jar the build made (nothing is written in the checkout). */
    private static Path checkoutWithTheJar() throws IOException {
        Path jar = Markdown.ROOT.resolve("server/target/verification-server.jar");
        assertThat(jar).as("the server's executable jar (mvn verify builds it before this test)").exists();
        Path checkout = directory.resolve("checkout");
        Files.createDirectories(checkout.resolve("server/target"));
        Files.createSymbolicLink(checkout.resolve("server/target/verification-server.jar"), jar);
        return checkout;
    }

    private static int awaitReady(Process server) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        Instant deadline = Instant.now().plus(READY_WITHIN);
        while (Instant.now().isBefore(deadline)) {
            assertThat(server.isAlive()).as("the service runs; it printed:%n%s", printed("service")).isTrue();
            Matcher port = PORT.matcher(printed("service"));
            if (port.find()) {
                HttpRequest readiness = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.group(1)
                        + "/actuator/health/readiness")).timeout(Duration.ofSeconds(10)).build();
                try {
                    if (client.send(readiness, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return Integer.parseInt(port.group(1));
                    }
                } catch (IOException notAnsweringYet) {
                    // asked again below
                }
            }
            server.waitFor(100, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("not ready within " + READY_WITHIN + "; it printed:\n" + printed("service"));
    }

    private static HttpResponse<String> post(HttpClient http, int port, String apiKey, String path, String body)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Markdown.Block blockWith(Markdown document, String text) {
        return document.blocks("sh").stream().filter(block -> block.text().contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError(document.file() + " has no sh block with " + text));
    }

    private static String printed(String name) {
        try {
            return Files.readString(directory.resolve(name + ".log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(nothing: " + e.getMessage() + ")";
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void keytool(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
                .toString()));
        command.addAll(List.of(arguments));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(keytool.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as("keytool %s", List.of(arguments)).isZero();
    }
}

package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.delivery.messages.MessageRenderer;
import dev.verificationservice.delivery.sms.SnsSmsSender;
import dev.verificationservice.spring.StartupException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import software.amazon.awssdk.services.sns.model.PublishRequest;

/** What the service does at start: refuse bad configuration clearly, and create its keys in embedded mode. */
@ExtendWith(OutputCaptureExtension.class)
class StartupTest {

    private static final String APP_KEY = "startup-app-key-0123456789abcdefghijkl";
    private static final String ADMIN_KEY = "startup-admin-key-0123456789abcdefghijk";

    @TempDir
    Path dataDir;

    /** The StartupException in a failed start's cause chain: what the operator is shown. */
    private static StartupException startupFailure(Runnable start) {
        try {
            start.run();
        } catch (RuntimeException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof StartupException startup) {
                    return startup;
                }
            }
            throw new AssertionError("start failed without a StartupException", e);
        }
        throw new AssertionError("the service started");
    }

    /**
     * Starts the service with the properties as command-line arguments: they must win over
     * application.properties (default properties would not, and {@code server.port=0} would become 8080).
     */
    private static ConfigurableApplicationContext start(String... properties) {
        SpringApplication application = new SpringApplicationBuilder(VerificationServerApplication.class).build();
        return application.run(java.util.Arrays.stream(properties).map(property -> "--" + property)
                .toArray(String[]::new));
    }

    @Test
    void theDynamoDbStoreRefusesToStartWithoutKeysAndNamesBoth() {
        assertThat(startupFailure(() -> start("server.port=0", "verification.store=dynamodb",
                "verification.dev-outbox=true")).problems()).extracting(Throwable::getMessage).containsExactly(
                "The dynamodb store needs VERIFICATION_SECRET_KEYS, and it is not set.",
                "The dynamodb store needs VERIFICATION_ENCRYPTION_KEYS, and it is not set.",
                "The dynamodb store needs VERIFICATION_API_KEYS, and it is not set.");
        assertThat(startupFailure(() -> start("server.port=0", "verification.store=dynamodb",
                "verification.dev-outbox=true", "verification.api-keys=" + APP_KEY,
                "verification.encryption-keys=6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=")))
                .hasMessage("The dynamodb store needs VERIFICATION_SECRET_KEYS, and it is not set.");
    }

    /**
     * A first start on DynamoDB with almost nothing set: one report names every missing or wrong setting, each with
     * what to set, and nothing before it is an error or a stack trace (no web server was made, no bean built).
     * The settings come as environment variables, as an operator sets them.
     */
    @Test
    void everyMissingOrWrongSettingIsNamedInOneReportAndNothingBeforeItIsAnError(CapturedOutput output) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource("operator-systemEnvironment", Map.of(
                "SERVER_PORT", "0",
                "VERIFICATION_STORE", "dynamodb",
                "VERIFICATION_LIMITS_SEND", "lots",
                "VERIFICATION_CODE_TTL", "fifteen minutes",
                "VERIFICATION_ADMIN_API_KEYS", "short-admin-key",
                "VERIFICATION_DYNAMODB_TABLE", "vt")));
        int before = output.getAll().length();

        StartupException refused = startupFailure(() -> new SpringApplicationBuilder(VerificationServerApplication.class)
                .environment(environment).run());

        assertThat(refused.problems()).extracting(Throwable::getMessage).containsExactlyInAnyOrder(
                "VERIFICATION_DYNAMODB_TABLE must be 3 to 255 characters of letters, digits, '_', '-' and '.'.",
                "VERIFICATION_CODE_TTL 'fifteen minutes' is not an ISO-8601 duration, for example PT15M (15 minutes), "
                        + "PT1H or P30D, or 15m, 1h, 30d.",
                "The dynamodb store needs VERIFICATION_API_KEYS, and it is not set.",
                "The dynamodb store needs VERIFICATION_SECRET_KEYS, and it is not set.",
                "The dynamodb store needs VERIFICATION_ENCRYPTION_KEYS, and it is not set.",
                "VERIFICATION_LIMITS_SEND 'lots' is not a limit.",
                "No delivery channel is configured, and the development outbox does not run on the dynamodb store "
                        + "unless asked for.",
                "An admin key in VERIFICATION_ADMIN_API_KEYS is shorter than 24 characters.");
        String printed = output.getAll().substring(before);
        int report = printed.indexOf("APPLICATION FAILED TO START");
        assertThat(report).as("Spring Boot's failure report, in:%n%s", printed).isPositive();
        List<String> beforeReport = printed.substring(0, report).lines().toList();
        // The report's own first line is the reporter's ERROR; nothing else before it may be one.
        assertThat(beforeReport.stream().filter(line -> line.contains("ERROR"))).singleElement().asString()
                .contains("LoggingFailureAnalysisReporter");
        assertThat(beforeReport).noneMatch(line -> line.startsWith("\tat ") || line.startsWith("Caused by"))
                .noneMatch(line -> line.contains("Tomcat"));
        String description = printed.substring(report);
        assertThat(description).contains("8 verification settings are missing or wrong")
                .contains("Set VERIFICATION_API_KEYS (comma-separated API keys of 24 or more random characters)")
                .contains("Set VERIFICATION_SECRET_KEYS (comma-separated base64 HMAC keys")
                .contains("Set VERIFICATION_ENCRYPTION_KEYS (comma-separated base64 AES-256 keys")
                .contains("Set VERIFICATION_LIMITS_SEND to a count and an ISO-8601 window, for example 5/PT15M")
                .contains("Set VERIFICATION_CODE_TTL to an ISO-8601 duration")
                .contains("Set VERIFICATION_DYNAMODB_TABLE to the table's name")
                .contains("Set VERIFICATION_SMTP_HOST").contains("VERIFICATION_SMS_PROVIDER (sns or webhook)")
                .doesNotContain("\tat ");
    }

    /** The settings are checked before anything is written: a refused first start leaves no key file behind. */
    @Test
    void aRefusedStartWritesNoKeyFile() {
        Path data = dataDir.resolve("refused");
        startupFailure(() -> start("server.port=0", "verification.data-dir=" + data,
                "verification.limits.verify=5 per 15 minutes"));
        assertThat(data).doesNotExist();
    }

    @Test
    void theEmbeddedModeGeneratesOwnerOnlyKeysOnFirstStartAndKeepsThem() throws Exception {
        Path data = dataDir.resolve("data");
        String apiKey;
        try (ConfigurableApplicationContext context = start("server.port=0", "verification.data-dir=" + data)) {
            apiKey = Files.readString(data.resolve("api-key")).trim();
            assertThat(apiKey).matches("[A-Za-z0-9_-]{43}");
            assertThat(Files.getPosixFilePermissions(data.resolve("api-key")))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.getPosixFilePermissions(data.resolve("secret-key")))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.getPosixFilePermissions(data)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
            assertThat(Files.exists(data.resolve("verification.db"))).isTrue();
        }
        try (ConfigurableApplicationContext context = start("server.port=0", "verification.data-dir=" + data)) {
            assertThat(Files.readString(data.resolve("api-key")).trim()).isEqualTo(apiKey);
        }
    }

    @Test
    void badSettingsAreRefusedWithTheVariableToFix() {
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.audit-retention=sometimes"))).hasMessageContaining("VERIFICATION_AUDIT_RETENTION");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.sms.provider=webhook"))).hasMessageContaining("VERIFICATION_SMS_WEBHOOK_URL");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.secret-keys=c2hvcnQ="))).hasMessageContaining("VERIFICATION_SECRET_KEYS");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.api-keys=secret"))).hasMessageContaining("VERIFICATION_API_KEYS");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.sms.webotp-domain=https://app.example.com/"))).hasMessageContaining("VERIFICATION_SMS_WEBOTP_DOMAIN");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.templates.PASSWORD_RESET.LNK.sms=x")))
                .hasMessageContaining("verification.templates.PASSWORD_RESET.LNK.sms is not a template");
        assertThatThrownBy(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.dynamodb.table=vt")).hasStackTraceContaining("VERIFICATION_DYNAMODB_TABLE must be 3 to 255");
    }

    @Test
    void anSnsMessageIsATransactionalPublishToThePhoneNumber() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
        SnsSmsSender sender = new SnsSmsSender(null, new MessageRenderer(Map.of(), "https://x/{code}", clock), "ACME");
        PublishRequest request = sender.publishRequest(new OutgoingCode("u", CodeType.PHONE_VERIFICATION,
                CodeFormat.NUMERIC, DeliveryMethod.SMS, "+447700123456", "+44******3456", "123456",
                Instant.parse("2026-11-30T10:15:00Z")));

        assertThat(request.phoneNumber()).isEqualTo("+447700123456");
        assertThat(request.message()).contains("123456").contains("15 minutes");
        assertThat(request.messageAttributes().get("AWS.SNS.SMS.SMSType").stringValue()).isEqualTo("Transactional");
        assertThat(request.messageAttributes().get("AWS.SNS.SMS.SenderID").stringValue()).isEqualTo("ACME");
    }

    @Test
    void aGeneratedApiKeyIsPrintedOnceOnTheConsoleAndNeverLogged(CapturedOutput output) throws Exception {
        Path data = dataDir.resolve("printed");
        String apiKey;
        try (ConfigurableApplicationContext context = start("server.port=0", "verification.data-dir=" + data)) {
            apiKey = Files.readString(data.resolve("api-key")).trim();
        }
        // The logger writes to the console too: one occurrence in all of the output means the log never had it.
        assertThat(countOf(output.getAll(), apiKey)).as("occurrences of the key in the output").isEqualTo(1);
        String keyLine = output.getOut().lines().filter(line -> line.contains(apiKey)).findFirst().orElseThrow();
        assertThat(keyLine.trim()).as("the key stands alone on its line, not in a log line").isEqualTo(apiKey);
        String logLine = output.getAll().lines().filter(line -> line.contains("Generated a new API key"))
                .findFirst().orElseThrow();
        assertThat(logLine).contains("WARN").contains(data.resolve("api-key").toAbsolutePath().toString())
                .contains("not in this log").doesNotContain(apiKey);

        // A later start reuses the key and shows it nowhere.
        int before = output.getAll().length();
        try (ConfigurableApplicationContext context = start("server.port=0", "verification.data-dir=" + data)) {
            assertThat(Files.readString(data.resolve("api-key")).trim()).isEqualTo(apiKey);
        }
        assertThat(output.getAll().substring(before)).doesNotContain(apiKey);
    }

    private static int countOf(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            count++;
        }
        return count;
    }

    @Test
    void withoutAdminKeysTheOperatorApiAndTheConsoleAreOffAndNoKeyIsGenerated() throws Exception {
        Path data = dataDir.resolve("no-admin");
        try (ConfigurableApplicationContext context = start("server.port=0", "verification.data-dir=" + data,
                "verification.api-keys=" + APP_KEY)) {
            ApiClient api = new ApiClient(port(context), APP_KEY);
            for (ApiClient client : List.of(api, api.withKey(null), api.withKey(ADMIN_KEY))) {
                ApiClient.Answer overview = client.get("/v1/admin/users/alice");
                assertThat(overview.status()).isEqualTo(404);
                assertThat(overview.text("code")).isEqualTo("NOT_FOUND");
                assertThat(overview.text("detail")).contains("VERIFICATION_ADMIN_API_KEYS");
                assertThat(client.delete("/v1/admin/users/alice/codes").status()).isEqualTo(404);
            }
            assertThat(api.get("/v1/users/alice/audit").status()).isEqualTo(200);
            // The support console is off the same way: every path, with or without a key.
            for (String path : List.of("/console", "/console/sign-in", "/console/users/alice")) {
                String[] answer = api.withKey(ADMIN_KEY).raw("GET", path, "");
                assertThat(answer[0]).as(path).isEqualTo("404");
                assertThat(answer[1]).contains("The console is off").contains("VERIFICATION_ADMIN_API_KEYS");
            }
        }
        try (java.util.stream.Stream<Path> files = Files.list(data)) {
            assertThat(files.map(file -> file.getFileName().toString())).noneMatch(name -> name.contains("admin"));
        }
    }

    /** Long enough is not enough: keys typed by hand are refused at start, naming the setting, never the key. */
    @Test
    void keysOfObviouslyLowEntropyAreRefusedAtStartNamingTheSetting() {
        String zeros = Base64.getEncoder().encodeToString(new byte[32]);
        String fifteenDistinct = Base64.getEncoder().encodeToString(
                "0123456789abcdeedcba9876543210aabbccddee0011".getBytes(StandardCharsets.US_ASCII));
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.admin-api-keys=" + "a".repeat(40))))
                .hasMessageContaining("VERIFICATION_ADMIN_API_KEYS is not random: it repeats one character");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.api-keys=" + "ab".repeat(20))))
                .hasMessageContaining("VERIFICATION_API_KEYS is not random: it repeats a pattern of 2 characters")
                .hasMessageNotContaining("abab");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.secret-keys=" + zeros)))
                .hasMessageContaining("VERIFICATION_SECRET_KEYS is not usable: HMAC key #1 is not random: it repeats one byte");
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.secret-keys=" + fifteenDistinct)))
                .hasMessageContaining("VERIFICATION_SECRET_KEYS").hasMessageContaining("only 15 distinct bytes");
    }

    @Test
    void adminKeysMustBeLongAndNeverAlsoApplicationKeys() {
        assertThat(startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.admin-api-keys=short-admin-key")))
                .hasMessageContaining("VERIFICATION_ADMIN_API_KEYS").hasMessageContaining("shorter than 24");
        StartupException shared = startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.api-keys=" + APP_KEY, "verification.admin-api-keys=" + ADMIN_KEY + "," + APP_KEY));
        assertThat(shared).hasMessageContaining("both VERIFICATION_API_KEYS and VERIFICATION_ADMIN_API_KEYS")
                .hasMessageNotContaining(APP_KEY);
        assertThat(shared.action()).contains("their own keys");
    }

    @Test
    void plainSmtpIsOnlyForARelayOnThisMachineAndNeverWithCredentials() {
        StartupException remote = startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.smtp.host=smtp.example.com", "verification.smtp.security=NONE"));
        assertThat(remote).hasMessageContaining("VERIFICATION_SMTP_SECURITY is NONE")
                .hasMessageContaining("VERIFICATION_SMTP_HOST 'smtp.example.com'");
        assertThat(remote.action()).contains("STARTTLS").contains("SMTPS");
        StartupException credentials = startupFailure(() -> start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.smtp.host=127.0.0.1", "verification.smtp.security=NONE",
                "verification.smtp.username=mailer", "verification.smtp.password=mailer-secret"));
        assertThat(credentials).hasMessageContaining("VERIFICATION_SMTP_USERNAME")
                .hasMessageContaining("VERIFICATION_SMTP_PASSWORD").hasMessageNotContaining("mailer-secret");
        assertThat(credentials.action()).contains("STARTTLS");
        // A local relay without a login starts.
        try (ConfigurableApplicationContext context = start("server.port=0", "verification.data-dir=" + dataDir,
                "verification.smtp.host=localhost", "verification.smtp.security=NONE")) {
            assertThat(context.isRunning()).isTrue();
        }
    }

    private static int port(ConfigurableApplicationContext context) {
        return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }
}

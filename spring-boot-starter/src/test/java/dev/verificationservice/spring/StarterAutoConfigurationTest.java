package dev.verificationservice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.codes.Mailboxes;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import dev.verificationservice.spring.keys.EncryptionKeys;
import dev.verificationservice.spring.events.WebhookAutoConfiguration;
import dev.verificationservice.spring.security.LoginAutoConfiguration;
import dev.verificationservice.spring.security.PasskeyLoginAutoConfiguration;
import dev.verificationservice.spring.settings.SettingsCheckAutoConfiguration;
import dev.verificationservice.spring.store.StoreAutoConfiguration;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the starter's auto-configuration makes, what it leaves to the application, and how it refuses. */
class StarterAutoConfigurationTest {

    private static final String KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    private static final String ENCRYPTION_KEY = "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(StoreAutoConfiguration.class, DeliveryAutoConfiguration.class,
                    VerificationAutoConfiguration.class));

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("verification-starter");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theAutoConfigurationsAreRegisteredForSpringBoot() throws IOException {
        try (InputStream imports = getClass().getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
            assertThat(imports).isNotNull();
            assertThat(new String(imports.readAllBytes(), StandardCharsets.UTF_8).lines().toList()).containsExactlyInAnyOrder(
                    StoreAutoConfiguration.class.getName(), DeliveryAutoConfiguration.class.getName(),
                    VerificationAutoConfiguration.class.getName(), LoginAutoConfiguration.class.getName(),
                    PasskeyLoginAutoConfiguration.class.getName(),
                    WebhookAutoConfiguration.class.getName(), SettingsCheckAutoConfiguration.class.getName());
        }
    }

    @Test
    void withNothingButADataDirectoryTheVerificationRunsOnTheEmbeddedStore() {
        Path dataDir = temporaryDirectory();
        runner.withPropertyValues("verification.data-dir=" + dataDir).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Verification.class).hasBean("verificationStoreHealthIndicator");
            assertThat(dataDir.resolve("secret-key")).isRegularFile();
        });
    }

    @Test
    void theApplicationsOwnKeysVerificationAndClockWin() {
        Path dataDir = temporaryDirectory();
        SecretKeyRing own = SecretKeyRing.fromBase64(List.of(KEY));
        runner.withPropertyValues("verification.data-dir=" + dataDir)
                .withBean("myKeys", SecretKeyRing.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SecretKeyRing.class)).isSameAs(own);
                    assertThat(dataDir.resolve("secret-key")).as("no key generated beside the application's").doesNotExist();
                });
    }

    /** A standard's shorter maximum lifetime (10 minutes for out-of-band codes) is one setting away. */
    @Test
    void theCodeTtlSettingIsTheLifetimeOfEveryCode() {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
        runner.withPropertyValues("verification.data-dir=" + temporaryDirectory(), "verification.code-ttl=PT10M")
                .withBean(Clock.class, () -> clock)
                .run(context -> {
                    Verification verification = context.getBean(Verification.class);
                    VerifyRequest request = VerifyRequest.numeric(sendCode(context, "ada"), "ada",
                            CodeType.EMAIL_VERIFICATION);
                    clock.advance(Duration.ofMinutes(10).minusSeconds(1));
                    assertThat(verification.codes().check(request).valid()).isTrue();

                    clock.advance(Duration.ofSeconds(1));
                    assertThat(verification.codes().verify(request)).isInstanceOfSatisfying(VerificationResult.Invalid.class,
                            invalid -> assertThat(invalid.reason()).isEqualTo(FailureReason.EXPIRED));
                });
    }

    /** Sends the user an email code through the context's Verification and reads it from the development outbox. */
    private static String sendCode(ApplicationContext context, String userId) {
        String address = userId + "@example.com";
        assertThat(context.getBean(Verification.class).codes().issue(CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, address))).isInstanceOf(IssueResult.Issued.class);
        return context.getBean(DeliveryChannels.class).outbox().orElseThrow().messages().stream()
                .filter(message -> message.to().equals(address)).findFirst().orElseThrow().code();
    }

    @Test
    void withoutSpringBootsHealthSupportThereIsNoHealthIndicator() {
        runner.withPropertyValues("verification.data-dir=" + temporaryDirectory())
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Verification.class)
                        .doesNotHaveBean("verificationStoreHealthIndicator"));
    }

    @Test
    void theTargetLimitDropsPlusTagsOnEveryDomainUnlessTheSubaddressDomainsSayOtherwise() {
        Path dataDir = temporaryDirectory();
        runner.withPropertyValues("verification.data-dir=" + dataDir).run(context -> assertThat(
                context.getBean(VerificationSettings.class).mailboxes()).isEqualTo(Mailboxes.EVERY_DOMAIN));
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.subaddress-domains=none")
                .run(context -> assertThat(context.getBean(VerificationSettings.class).mailboxes())
                        .isEqualTo(new Mailboxes(false, Set.of())));
        runner.withPropertyValues("verification.data-dir=" + dataDir,
                "verification.limits.subaddress-domains=Example.com, example.org").run(context -> assertThat(
                        context.getBean(VerificationSettings.class).mailboxes())
                        .isEqualTo(new Mailboxes(false, Set.of("example.com", "example.org"))));
        runner.withPropertyValues("verification.data-dir=" + dataDir,
                "verification.limits.subaddress-domains=example.com,not a domain").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                    .hasMessageContaining("VERIFICATION_LIMITS_SUBADDRESS_DOMAINS names 'not a domain'");
        });
    }

    /** A counter item holds at most 10000 places: a larger limit stops the start, naming what to set. */
    @Test
    void aLimitPastWhatOneCounterItemHoldsStopsTheStartAndALargeSmsBudgetNeedsShards() {
        Path dataDir = temporaryDirectory();
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.send=10001/PT1H")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                            .hasMessageContaining("VERIFICATION_LIMITS_SEND '10001/PT1H' allows more than 10000");
                });
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.sms-budget=90000/P1D")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                            .hasMessageContaining("VERIFICATION_LIMITS_SMS_BUDGET_SHARDS is 8")
                            .extracting(failure -> ((StartupException) failure).action()).asString()
                            .contains("between 9 and 90000");
                });
        // By default a budget is split over 8 shards, or over as many as it has places when it has fewer.
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.sms-budget=25000/P1D")
                .run(context -> assertThat(context.getBean(VerificationSettings.class).smsBudget())
                        .contains(new RateLimitPolicy(25000, Duration.ofDays(1), 8)));
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.sms-budget=5/PT1H")
                .run(context -> assertThat(context.getBean(VerificationSettings.class).smsBudget())
                        .contains(new RateLimitPolicy(5, Duration.ofHours(1), 5)));
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.sms-budget=25000/P1D",
                "verification.limits.sms-budget-shards=3").run(context -> assertThat(
                        context.getBean(VerificationSettings.class).smsBudget())
                        .contains(new RateLimitPolicy(25000, Duration.ofDays(1), 3)));
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.limits.send=10000/PT1H")
                .run(context -> assertThat(context.getBean(VerificationSettings.class).sendLimit().limit())
                        .isEqualTo(10000));
    }

    @Test
    void onDynamoDbMissingHmacKeysStopTheStartAndSayWhatToSet() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.dev-outbox=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                    .hasMessageContaining("needs VERIFICATION_SECRET_KEYS");
        });
    }

    @Test
    void onDynamoDbMissingEncryptionKeysStopTheStartAndSayWhatToSet() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.secret-keys=" + KEY,
                "verification.dev-outbox=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                    .hasMessageContaining("needs VERIFICATION_ENCRYPTION_KEYS")
                    .extracting(failure -> ((StartupException) failure).action()).asString()
                    .contains("openssl rand -base64 32");
        });
    }

    /** One ring for every secret that must be read back: the TOTP secrets and the webhook endpoints' secrets. */
    @Test
    void totpAndWebhooksShareOneEncryptionKeyRing() {
        runner.withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
                .withPropertyValues("verification.data-dir=" + temporaryDirectory(),
                        "verification.encryption-keys=" + ENCRYPTION_KEY)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Webhooks.class)
                        .hasSingleBean(EncryptionKeyRing.class));
    }

    /** On the embedded store the encryption key is generated once into the data directory and kept there. */
    @Test
    void onTheEmbeddedStoreAnEncryptionKeyIsGeneratedOnceAndTotpWorks() throws IOException {
        Path dataDir = temporaryDirectory();
        runner.withPropertyValues("verification.data-dir=" + dataDir).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Verification.class).totp().list("user-1")).isEmpty();
        });
        Path keyFile = dataDir.resolve(EncryptionKeys.ENCRYPTION_KEY_FILE);
        assertThat(keyFile).isRegularFile();
        assertThat(Files.readString(keyFile).trim()).isNotEqualTo(Files.readString(dataDir.resolve("secret-key")).trim());
        String generated = Files.readString(keyFile);
        runner.withPropertyValues("verification.data-dir=" + dataDir).run(context -> assertThat(context).hasNotFailed());
        assertThat(Files.readString(keyFile)).as("kept, not generated again").isEqualTo(generated);
    }

    @Test
    void anEncryptionKeyThatIsNotAnAes256KeyStopsTheStartNamingTheSetting() {
        runner.withPropertyValues("verification.data-dir=" + temporaryDirectory(),
                "verification.encryption-keys=c2hvcnQ=").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(StartupException.class.getName())
                    .hasStackTraceContaining("VERIFICATION_ENCRYPTION_KEYS is not usable: encryption key #1 has 5 bytes");
        });
    }

    @Test
    void internationalNetworksGetSmsOnlyWhenTheirCallingCodesAreListed() {
        runner.withPropertyValues("verification.data-dir=" + temporaryDirectory()).run(context ->
                assertThat(context.getBean(VerificationSettings.class).smsNetworks()).isEmpty());
        runner.withPropertyValues("verification.data-dir=" + temporaryDirectory(),
                "verification.limits.sms-non-geographic=870, +881").run(context ->
                assertThat(context.getBean(VerificationSettings.class).smsNetworks()).containsExactlyInAnyOrder(870, 881));
        runner.withPropertyValues("verification.data-dir=" + temporaryDirectory(),
                "verification.limits.sms-non-geographic=870,44").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                    .hasMessageContaining("VERIFICATION_LIMITS_SMS_NON_GEOGRAPHIC names '44'");
        });
    }

    /** The store is the application's own here, so that the delivery check is what the start meets first. */
    @Test
    void onDynamoDbWithoutAChannelOrTheOutboxTheStartIsRefused() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.secret-keys=" + KEY,
                        "verification.encryption-keys=" + ENCRYPTION_KEY)
                .withBean(VerificationStore.class, () -> SqliteVerificationStore.open(temporaryDirectory(), Clock.systemUTC()))
                .run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                    .hasMessageContaining("No delivery channel is configured");
        });
    }

    @Test
    void onDynamoDbSeveralClientsWithoutAPrimaryOneStopTheStartAndSayWhatToDo() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.secret-keys=" + KEY,
                        "verification.encryption-keys=" + ENCRYPTION_KEY,
                        "verification.dev-outbox=true")
                .withBean("ordersClient", DynamoDbClient.class, StarterAutoConfigurationTest::unusedClient)
                .withBean("auditClient", DynamoDbClient.class, StarterAutoConfigurationTest::unusedClient)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(StartupException.class)
                            .hasMessageContaining("several DynamoDbClient beans").hasMessageContaining("@Primary");
                    assertThat(context.getStartupFailure()).rootCause().extracting(failure ->
                            ((StartupException) failure).action()).asString().contains("@Primary");
                });
    }

    /** Of several clients, the {@code @Primary} one is the store's: here the one whose (closed) port the start names. */
    @Test
    void onDynamoDbThePrimaryOfSeveralClientsIsTheOneTheStoreUses() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.secret-keys=" + KEY,
                        "verification.encryption-keys=" + ENCRYPTION_KEY,
                        "verification.dev-outbox=true")
                .withBean("ordersClient", DynamoDbClient.class, () -> clientOf(9))
                .withBean("verificationClient", DynamoDbClient.class, () -> clientOf(10),
                        definition -> definition.setPrimary(true))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("Cannot reach DynamoDB table")
                            .hasStackTraceContaining("127.0.0.1:10");
                    StringWriter trace = new StringWriter();
                    context.getStartupFailure().printStackTrace(new PrintWriter(trace));
                    assertThat(trace.toString()).as("the other client was never called").doesNotContain("127.0.0.1:9");
                });
    }

    /** A client that is never called: building one opens no connection. */
    private static DynamoDbClient unusedClient() {
        return clientOf(9);
    }

    /** A client of a port where nothing listens on this machine (9 is "discard", closed here; so is 10). */
    private static DynamoDbClient clientOf(int port) {
        return DynamoDbClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://127.0.0.1:" + port))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))).build();
    }

    /** IDE completion: every setting of the starter with its description and default, none of the server's. */
    @Test
    void theConfigurationMetadataDescribesEverySetting() throws IOException {
        JsonNode metadata;
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(json).as("written by spring-boot-configuration-processor").isNotNull();
            metadata = JsonMapper.builder().build().readTree(json);
        }
        List<String> names = metadata.get("properties").valueStream().map(property -> property.get("name").asString())
                .toList();
        assertThat(names).contains("verification.store", "verification.data-dir", "verification.secret-keys",
                "verification.encryption-keys",
                "verification.dynamodb.table", "verification.limits.send", "verification.smtp.host",
                "verification.sms.provider", "verification.templates", "verification.limits.sms-non-geographic");
        assertThat(names).doesNotContain("verification.api-keys", "verification.admin-api-keys");
        JsonNode store = metadata.get("properties").valueStream()
                .filter(property -> property.get("name").asString().equals("verification.store")).findFirst().orElseThrow();
        assertThat(store.get("defaultValue").asString()).isEqualTo("embedded");
        assertThat(store.get("description").asString()).contains("embedded").contains("dynamodb");
        assertThat(metadata.get("properties").valueStream().filter(property -> !property.has("description"))
                .map(property -> property.get("name").asString()).toList()).as("settings without a description").isEmpty();
    }
}

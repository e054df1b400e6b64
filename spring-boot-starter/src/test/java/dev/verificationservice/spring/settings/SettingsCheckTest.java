package dev.verificationservice.spring.settings;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.i18n.phonenumbers.PhoneNumberUtil.PhoneNumberType;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import dev.verificationservice.spring.events.WebhookAutoConfiguration;
import dev.verificationservice.spring.store.StoreAutoConfiguration;
import dev.verificationservice.store.dynamodb.GlobalTableMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The settings check in an application that embeds the starter: every problem in one refused start, before any
 * bean is built, and only for the beans the starter is going to build.
 */
class SettingsCheckTest {

    private static final String KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    private static final String ENCRYPTION_KEY = "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(StoreAutoConfiguration.class, DeliveryAutoConfiguration.class,
                    VerificationAutoConfiguration.class, WebhookAutoConfiguration.class,
                    SettingsCheckAutoConfiguration.class));

    private static List<String> problemsOf(Throwable failure) {
        assertThat(failure).isInstanceOf(StartupException.class);
        return ((StartupException) failure).problems().stream().map(Throwable::getMessage).toList();
    }

    @Test
    void everyProblemIsNamedInOneRefusedStartWithWhatToSet() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.sms.provider=webhook",
                "verification.limits.ip=20 an hour", "verification.limits.sms-countries=GB,XX",
                "verification.dynamodb.max-attempts=0", "verification.webhooks.enabled=true",
                "verification.webhooks.workers=0", "verification.smtp.host=smtp.example.com",
                "verification.smtp.from=no-reply at example.com").run(context -> {
            assertThat(context).hasFailed();
            assertThat(problemsOf(context.getStartupFailure())).containsExactlyInAnyOrder(
                    "VERIFICATION_DYNAMODB_MAX_ATTEMPTS must be between 1 and 10.",
                    "The dynamodb store needs VERIFICATION_SECRET_KEYS, and it is not set.",
                    "The dynamodb store needs VERIFICATION_ENCRYPTION_KEYS, and it is not set.",
                    "VERIFICATION_LIMITS_IP '20 an hour' is not a limit.",
                    "VERIFICATION_LIMITS_SMS_COUNTRIES names 'XX', which is not a region.",
                    "VERIFICATION_SMS_PROVIDER is webhook but VERIFICATION_SMS_WEBHOOK_URL is not set.",
                    "VERIFICATION_SMS_WEBHOOK_SECRET is missing or shorter than 32 characters.",
                    "VERIFICATION_SMTP_FROM 'no-reply at example.com' is not an email address.",
                    "The webhook relay's settings are not usable: workers, perEndpointConcurrency and batchSize must "
                            + "be at least 1.");
            StartupException refused = (StartupException) context.getStartupFailure();
            assertThat(refused.getMessage()).startsWith("9 verification settings are missing or wrong")
                    .contains("\n4. VERIFICATION_LIMITS_IP '20 an hour' is not a limit.\n   Set VERIFICATION_LIMITS_IP "
                            + "to a count and an ISO-8601 window, for example 5/PT15M");
            assertThat(refused.toString()).as("the one line Spring logs before the report").doesNotContain("\n");
        });
    }

    /** Checked before any bean: the embedded store's key files are not written for a start that is refused. */
    @Test
    void theSmsSignalSettingsAreBoundAndAnUnusableOneIsNamed() {
        runner.withPropertyValues("verification.secret-keys=" + KEY, "verification.encryption-keys=" + ENCRYPTION_KEY,
                "verification.data-dir=" + tempDirectory(), "verification.sms-signals.monitor-only=true",
                "verification.sms-signals.min-sends=80", "verification.sms-signals.range-digits-by-calling-code=1=6,44=5",
                "verification.sms-signals.refused-number-types=PREMIUM_RATE,SHARED_COST").run(context -> {
            assertThat(context).hasNotFailed();
            SmsSignalPolicy policy = context.getBean(VerificationSettings.class).smsSignals();
            assertThat(policy.monitorOnly()).isTrue();
            assertThat(policy.minSends()).isEqualTo(80);
            assertThat(policy.ranges().digitsByCallingCode()).containsEntry(44, 5).containsEntry(1, 6);
            assertThat(policy.refusedNumberTypes()).containsExactlyInAnyOrder(PhoneNumberType.PREMIUM_RATE,
                    PhoneNumberType.SHARED_COST);
        });
        runner.withPropertyValues("verification.sms-signals.refused-number-types=PREMIUM",
                "verification.sms-signals.range-digits-by-calling-code=44:5").run(context ->
                assertThat(problemsOf(context.getStartupFailure())).contains(
                        "VERIFICATION_SMS_SIGNALS_REFUSED_NUMBER_TYPES names 'PREMIUM', which is no kind of number.",
                        "VERIFICATION_SMS_SIGNALS_RANGE_DIGITS_BY_CALLING_CODE '44:5' is not <calling code>=<digits>."));
    }

    private static String tempDirectory() {
        try {
            return Files.createTempDirectory("verification-sms-signals").toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void nothingIsBuiltOrWrittenBeforeTheCheck() throws IOException {
        Path dataDir = Files.createTempDirectory("verification-settings").resolve("data");
        runner.withPropertyValues("verification.data-dir=" + dataDir, "verification.audit-retention=sometimes")
                .run(context -> {
            assertThat(problemsOf(context.getStartupFailure())).containsExactly(
                    "VERIFICATION_AUDIT_RETENTION 'sometimes' is neither a duration nor 'forever'.");
            assertThat(dataDir).doesNotExist();
        });
    }

    /** An application's own keys and sender replace the starter's, and with them the settings they would need. */
    @Test
    void theApplicationsOwnKeysAndSenderAreNotAskedForTheirSettings() {
        runner.withPropertyValues("verification.store=dynamodb", "verification.limits.send=10001/PT1H")
                .withBean(SecretKeyRing.class, () -> SecretKeyRing.fromBase64(List.of(KEY)))
                .withBean(EncryptionKeyRing.class, () -> EncryptionKeyRing.fromBase64(List.of(ENCRYPTION_KEY)))
                .withBean(CodeSender.class, () -> code -> { })
                .run(context -> assertThat(problemsOf(context.getStartupFailure())).containsExactly(
                        "VERIFICATION_LIMITS_SEND '10001/PT1H' allows more than 10000 per window, the most one "
                                + "counter item holds (DynamoDB items hold at most 400 KB)."));
    }

    /** A warm throughput no higher than a new table's start would pay for nothing: refused by name at start. */
    @Test
    void aWarmThroughputANewTableAlreadyHasIsRefused() {
        runner.withPropertyValues("verification.dynamodb.warm-read-units=12000").run(context ->
                assertThat(problemsOf(context.getStartupFailure())).containsExactly(
                        "VERIFICATION_DYNAMODB_WARM_READ_UNITS: warm read units must be more than 12000, what a new "
                                + "on-demand table starts with, but is 12000."));
        assertThat(new VerificationProperties.Dynamodb("verification", null, true, Duration.ofSeconds(3),
                Duration.ofSeconds(1), 3, GlobalTableMode.NONE, 4001L, 12001L).warmWriteUnits()).isEqualTo(4001L);
    }

    /** A value that does not convert is a problem like the others, named with what a valid one looks like. */
    @Test
    void valuesOfTheWrongKindAreListedWithTheRest() {
        runner.withPropertyValues("verification.store=dynamo", "verification.outbox-size=many",
                "verification.code-ttl=fifteen", "verification.limits.verify=lots").run(context ->
                assertThat(problemsOf(context.getStartupFailure())).containsExactlyInAnyOrder(
                        "VERIFICATION_STORE 'dynamo' is not one of embedded, dynamodb.",
                        "VERIFICATION_OUTBOX_SIZE 'many' is not a whole number, for example 5.",
                        "VERIFICATION_CODE_TTL 'fifteen' is not an ISO-8601 duration, for example PT15M (15 minutes), "
                                + "PT1H or P30D, or 15m, 1h, 30d.",
                        "VERIFICATION_LIMITS_VERIFY 'lots' is not a limit."));
    }

    @Test
    void aSettingIsNamedByItsEnvironmentVariable() {
        assertThat(Settings.variableOf(org.springframework.boot.context.properties.source.ConfigurationPropertyName
                .of("verification.limits.sms-budget-shards"))).isEqualTo("VERIFICATION_LIMITS_SMS_BUDGET_SHARDS");
        assertThat(Settings.variableOf(org.springframework.boot.context.properties.source.ConfigurationPropertyName
                .of("verification.api-keys[0]"))).isEqualTo("VERIFICATION_API_KEYS");
    }
}

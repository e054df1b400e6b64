package dev.verificationservice.client;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.server.VerificationServerApplication;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.spring.store.MeteredVerificationStore;
import dev.verificationservice.testsupport.concurrency.MeetingPoints;
import dev.verificationservice.testsupport.proxies.Interposed;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The real server, started once for all the client's tests: {@link VerificationServerApplication} on a random
 * port of 127.0.0.1, the embedded store in a fresh directory, fixed keys, the development outbox, and a clock
 * the tests move. The embedded store waits 0.3 s for its write lock, so a test that holds the lock sees a 503
 * at once.
 */
final class TestServer {

    static final String API_KEY = "client-test-api-key-0123456789abcdefghij";
    static final String ADMIN_KEY = "client-test-admin-key-0123456789abcdefghi";
    static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    static final Instant START = Instant.parse("2026-11-30T10:00:00Z");

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static TestServer shared;

    private final ConfigurableApplicationContext context;
    private final Path dataDirectory;
    private final URI uri;

    /** The service's clock, moved by tests instead of sleeping. */
    @Configuration(proxyBeanMethods = false)
    static class TestClock {
        @Bean
        @Primary
        MutableClock testClock() {
            return new MutableClock(START);
        }
    }

    /** Each read of a user's recovery codes that {@link #meetAtRecoveryCodeRead} armed waits for the others. */
    static class RecoveryCodeReads implements BeanPostProcessor {
        final MeetingPoints points = new MeetingPoints();

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            return bean instanceof VerificationStore store
                    ? Interposed.withPort(VerificationStore.class, store, "recoveryCodes", points.around(
                        RecoveryCodeRepository.class, store.recoveryCodes(), "findRecoveryCodes", args -> args[0]))
                : bean;
        }
    }

    private TestServer() {
        try {
            dataDirectory = Files.createTempDirectory("verification-client-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        context = new SpringApplicationBuilder(VerificationServerApplication.class, TestClock.class,
                RecoveryCodeReads.class)
                // Arguments, not default properties: application.properties (server.port=8080) overrides those.
                .run("--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off",
                        "--verification.data-dir=" + dataDirectory,
                        "--verification.api-keys=" + API_KEY,
                        "--verification.admin-api-keys=" + ADMIN_KEY,
                        "--verification.secret-keys=" + HMAC_KEY,
                        "--verification.embedded-lock-wait=PT0.3S");
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        uri = URI.create("http://127.0.0.1:" + port);
    }

    /** The server of this test run, started on first use and stopped when the JVM ends. */
    static synchronized TestServer shared() {
        if (shared == null) {
            shared = new TestServer();
            Runtime.getRuntime().addShutdownHook(new Thread(shared.context::close));
        }
        return shared;
    }

    URI uri() {
        return uri;
    }

    MutableClock clock() {
        return context.getBean(MutableClock.class);
    }

    /** How many store operations of the server have failed so far (its store timer, outcome {@code error}). */
    long storeFailures() {
        return context.getBeanProvider(MeterRegistry.class).getObject().find(MeteredVerificationStore.TIMER)
                .tag("outcome", "error").timers().stream().mapToLong(Timer::count).sum();
    }

    /** The next {@code parties} reads of the user's recovery codes on the server wait for one another. */
    void meetAtRecoveryCodeRead(String userId, int parties) {
        context.getBean(RecoveryCodeReads.class).points.meet(userId, parties);
    }

    /** A client of this server with the default retry policy. */
    VerificationClient client() {
        return VerificationClient.builder().baseUri(uri).apiKey(API_KEY).build();
    }

    /** A client of this server's operator API. */
    VerificationClient adminClient() {
        return VerificationClient.builder().baseUri(uri).apiKey(ADMIN_KEY).build();
    }

    VerificationClient.Builder clientBuilder() {
        return VerificationClient.builder().baseUri(uri).apiKey(API_KEY);
    }

    /**
     * Holds the embedded database's write lock ({@code BEGIN EXCLUSIVE}) until the returned connection is
     * closed, as another process could: every write of the service then fails within its lock wait.
     */
    Connection lockDatabase() throws SQLException {
        Connection connection = DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE));
        try (Statement statement = connection.createStatement()) {
            statement.execute("BEGIN EXCLUSIVE");
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    /**
     * Opens the SMS breaker of the country of {@code numbers} (each in a range of its own, none verified) as another
     * instance of the service would whose country breaker opens at that many sends: their sends are counted, the
     * instance reads the country again 10 s later and opens its breaker in the server's store.
     */
    void openCountryBreaker(List<String> numbers) {
        Verification other = Verification.builder().store(context.getBean(VerificationStore.class))
                .keys(SecretKeyRing.fromBase64(List.of(HMAC_KEY))).sender(new DevelopmentOutbox(clock()))
                .clock(clock()).settings(VerificationSettings.defaults().withSmsSignals(SmsSignalPolicy.DEFAULTS
                        .withCountry(new SmsSignalPolicy.CountryBreaker(numbers.size(), 0.5, Duration.ofSeconds(10)))))
                .build();
        SmsSignals signals = other.smsSignals();
        numbers.forEach(number -> {
            signals.check(number, false);
            signals.sent(number);
        });
        clock().advance(Duration.ofSeconds(10));
        if (!signals.check(numbers.get(0), false).refuses()) {
            throw new IllegalStateException("the breaker of " + numbers.get(0) + "'s country did not open");
        }
    }

    /** A user id no other test uses: sends are limited per user, and a new code per user and type waits 30 s. */
    static String newUser() {
        return "client-user-" + NAMES.incrementAndGet() + "-" + Long.toString(System.nanoTime(), 36);
    }

    /** An address of the user's own: sends to one address are limited whatever the user. */
    static String emailOf(String userId) {
        return userId + "@example.com";
    }

    /** A mobile number no other test uses. */
    static String newMobile() {
        return "+4477001" + String.format("%05d", NAMES.incrementAndGet() % 100_000);
    }
}

package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The embedded store when it falters (contract §12): another process holds the database's write lock. Requests
 * answer 503 STORE_UNAVAILABLE with Retry-After within the configured lock wait, readiness is DOWN, nothing
 * is half-written, and the service recovers by itself when the lock is released.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.embedded-lock-wait=PT0.3S",
        "verification.readiness-timeout=PT2S", "management.endpoint.health.show-details=always"})
@Import(TestClockConfiguration.class)
class EmbeddedStoreFaultTest {

    private static Path dataDirectory;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        dataDirectory = Files.createTempDirectory("verification-fault-test");
        registry.add("verification.data-dir", dataDirectory::toString);
    }

    @Test
    void aLockedStoreAnswers503WithRetryAfterIsNotReadyWritesNothingAndRecovers() throws Exception {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        Map<String, String> send = Map.of("userId", "locked-1", "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jane@example.com");
        assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(200);
        long rowsBefore;

        try (Connection holder = DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE));
             Statement statement = holder.createStatement()) {
            rowsBefore = rows(statement);
            statement.execute("BEGIN EXCLUSIVE");

            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                Answer refused = api.post("/v1/codes", send);
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
                assertThat(refused.text("code")).isEqualTo("STORE_UNAVAILABLE");
                assertThat(refused.text("detail")).startsWith("The store was busy with other writes");
                assertThat(refused.header("Retry-After")).matches("[1-9][0-9]*");

                Answer verify = api.post("/v1/codes/verify", Map.of("code", "123456", "userId", "locked-1",
                        "codeType", "EMAIL_VERIFICATION"));
                assertThat(verify.status()).isEqualTo(503);

                Answer readiness = api.get("/actuator/health/readiness");
                assertThat(readiness.status()).isEqualTo(503);
                assertThat(readiness.text("status")).isEqualTo("DOWN");
                assertThat(api.get("/actuator/health/liveness").status()).as("alive, only not ready").isEqualTo(200);
            });
            statement.execute("COMMIT");
            assertThat(rows(statement)).as("nothing was written while the store was locked").isEqualTo(rowsBefore);
        }

        Answer recovered = api.get("/actuator/health/readiness");
        assertThat(recovered.status()).as(recovered.raw().body()).isEqualTo(200);
        assertThat(api.post("/v1/codes", send).status()).isEqualTo(202);
    }

    @Test
    void withAnIdempotencyKeyALockedStoreIsStill503WithRetryAfterAndTheRetryRuns() throws Exception {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        Map<String, String> send = Map.of("userId", "locked-idem", "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jane.idem@example.com");
        Map<String, String> device = Map.of("userId", "locked-idem", "deviceId", "d-1", "deviceType", "WEB");

        try (Connection holder = DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE));
             Statement statement = holder.createStatement()) {
            statement.execute("BEGIN EXCLUSIVE");
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                assertUnavailable(api.postIdempotent("/v1/codes", send, "idem-send"));
                assertUnavailable(api.postIdempotent("/v1/devices", device, "idem-device"));
            });
            statement.execute("COMMIT");
        }

        assertThat(api.postIdempotent("/v1/codes", send, "idem-send").status()).isEqualTo(202);
        assertThat(api.postIdempotent("/v1/devices", device, "idem-device").status()).isEqualTo(201);
    }

    private static void assertUnavailable(Answer answer) {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(503);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.text("code")).isEqualTo("STORE_UNAVAILABLE");
        assertThat(answer.header("Retry-After")).matches("[1-9][0-9]*");
    }

    private static long rows(Statement statement) throws Exception {
        try (ResultSet count = statement.executeQuery("SELECT count(*) FROM items")) {
            count.next();
            return count.getLong(1);
        }
    }
}

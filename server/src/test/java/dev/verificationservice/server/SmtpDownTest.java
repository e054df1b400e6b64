package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** An SMTP server that cannot be reached: 502, the code is invalidated, and the failure is audited. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.smtp.host=127.0.0.1",
        "verification.smtp.security=STARTTLS",
        "verification.smtp.timeout=PT2S"})
@Import(TestClockConfiguration.class)
class SmtpDownTest {

    private static java.nio.file.Path dataDirectory;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void closedPort(DynamicPropertyRegistry registry) throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        int unreachable = closed;
        registry.add("verification.smtp.port", () -> unreachable);
        dataDirectory = Files.createTempDirectory("verification-smtp-down");
        registry.add("verification.data-dir", dataDirectory::toString);
    }

    @Test
    void aFailedDeliveryAnswers502AndLeavesNoUsableCode() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);

        Answer sent = api.post("/v1/codes", Map.of("userId", "down-user", "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jane@example.com"));

        assertThat(sent.status()).isEqualTo(502);
        assertThat(sent.text("code")).isEqualTo("DELIVERY_FAILED");
        assertThat(sent.text("maskedTarget")).isEqualTo("j***@example.com");
        assertThat(sent.raw().body()).doesNotContain("jane@example.com");
        Answer audit = api.get("/v1/users/down-user/audit");
        assertThat(audit.json().get("events").get(0).get("eventType").asString()).isEqualTo("CODE_DELIVERY_FAILED");
        assertThat(audit.raw().body()).doesNotContain("CODE_SENT");
        assertThat(storedCodesOf("down-user")).as("the undelivered code is deleted, not left usable").isZero();
    }

    private static long storedCodesOf(String userId) {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve("verification.db"));
             java.sql.PreparedStatement query = connection.prepareStatement(
                     "SELECT count(*) FROM items WHERE gsi1pk = ? AND gsi1sk LIKE 'CODE#%'")) {
            query.setString(1, "USER#" + userId);
            try (java.sql.ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * With webhooks off ({@code VERIFICATION_WEBHOOKS_ENABLED=false}, and by default on DynamoDB without encryption keys)
 * the service starts and serves as before; the webhook operator calls answer 404 {@code WEBHOOKS_OFF} saying what to
 * set, after the admin key was checked as on every operator call.
 */
@TestPropertySource(properties = "verification.webhooks.enabled=false")
class WebhooksOffTest extends EmbeddedOnlyApiTest {

    @Test
    void theOperatorCallsSayWebhooksAreOffAndTheRestWorks() {
        Answer register = admin().post("/v1/admin/webhooks", Map.of("url", "https://hooks.example.com/x"));
        assertThat(register.status()).isEqualTo(404);
        assertThat(register.header("Content-Type")).startsWith("application/problem+json");
        assertThat(register.text("code")).isEqualTo("WEBHOOKS_OFF");
        assertThat(register.text("detail")).contains("VERIFICATION_WEBHOOKS_ENABLED");
        assertThat(admin().get("/v1/admin/webhooks").text("code")).isEqualTo("WEBHOOKS_OFF");
        assertThat(api.get("/v1/admin/webhooks").status()).as("an application key").isEqualTo(403);

        String user = newUser();
        assertThat(sendEmailCode(user).status()).isEqualTo(202);
        assertThat(verify(user, codeFromOutbox()).json().get("valid").asBoolean()).isTrue();
    }
}

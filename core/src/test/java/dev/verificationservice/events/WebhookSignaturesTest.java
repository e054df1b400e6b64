package dev.verificationservice.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.validation.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookSignaturesTest {

    /** The example of the Standard Webhooks reference libraries: secret, id, timestamp, payload and signature. */
    @Test
    void signsTheSpecificationsExampleAsTheSpecificationDoes() {
        WebhookSecret secret = new WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        byte[] body = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);

        assertThat(WebhookSignatures.header(List.of(secret), "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body))
                .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void duringARotationBothSecretsSignSpaceSeparatedCurrentFirst() {
        WebhookSecret current = WebhookSecret.generate(new SecureRandom());
        WebhookSecret previous = WebhookSecret.generate(new SecureRandom());
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);

        String header = WebhookSignatures.header(List.of(current, previous), "evt_1", 1700000000, body);

        assertThat(header.split(" ")).containsExactly(
                WebhookSignatures.header(List.of(current), "evt_1", 1700000000, body),
                WebhookSignatures.header(List.of(previous), "evt_1", 1700000000, body));
    }

    @Test
    void aSecretIsWhsecAndBase64AndNeverPrinted() {
        WebhookSecret secret = WebhookSecret.generate(new SecureRandom());

        assertThat(secret.text()).startsWith("whsec_");
        assertThat(secret.keyBytes()).hasSize(WebhookSecret.KEY_BYTES);
        assertThat(secret.toString()).doesNotContain(secret.text().substring(6));
        assertThatThrownBy(() -> new WebhookSecret("sk_live_123")).isInstanceOf(InvalidInputException.class);
    }
}

package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.webhooks.StandardWebhooksVerifier;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The webhook operator calls through the client, against the real server and a real receiver. */
class WebhooksTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final TestServer server = TestServer.shared();
    private final VerificationClient client = server.client();
    private final VerificationClient admin = server.adminClient();

    @BeforeEach
    void resetClock() {
        server.clock().set(TestServer.START);
    }

    @Test
    void anOperatorManagesAnEndpointAndItsDeliveries() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            WebhookSecret registered = admin.webhooks().register(receiver.url(),
                    List.of("code.sent"), Optional.of("client test"));
            String endpointId = registered.endpointId();
            try {
                assertThat(registered.secret()).startsWith("whsec_");
                assertThat(registered.toString()).doesNotContain(registered.secret());
                assertThat(registered.endpoint().eventTypes()).containsExactly("code.sent");
                assertThat(registered.endpoint().enabled()).isTrue();
                assertThat(admin.webhooks().list()).extracting(WebhookEndpoint::endpointId).contains(endpointId);

                String user = newUser();
                client.codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                        TestServer.emailOf(user)));
                WebhookReceiver.Received sent = receiver.awaitMatching(request -> request.bodyText().contains(user), 1,
                        PATIENCE);
                assertThat(signedWith(registered.secret(), sent)).isTrue();

                WebhookSecret rotated = admin.webhooks().rotateSecret(endpointId);
                assertThat(rotated.secret()).isNotEqualTo(registered.secret());
                assertThat(rotated.endpoint().previousSecretSignsUntil()).contains(TestServer.START.plus(
                        Duration.ofHours(24)));
                admin.webhooks().redeliver(endpointId, sent.id());
                WebhookReceiver.Received again = receiver.awaitMatching(request -> sent.id().equals(request.id()), 2,
                        PATIENCE);
                assertThat(signedWith(rotated.secret(), again)).isTrue();
                assertThat(signedWith(registered.secret(), again)).isTrue();

                List<WebhookDelivery> deliveries = admin.webhooks().deliveries(endpointId);
                assertThat(deliveries).extracting(WebhookDelivery::eventId).contains(sent.id());
                assertThat(deliveries.get(0).type()).isEqualTo("code.sent");
                assertThat(deliveries.get(0).userId()).isEqualTo(user);
                assertThat(admin.webhooks().redeliver(endpointId, TestServer.START.minusSeconds(60),
                        TestServer.START.plusSeconds(60))).isGreaterThanOrEqualTo(1);
                assertThat(admin.webhooks().enable(endpointId).enabled()).isTrue();
            } finally {
                admin.webhooks().delete(endpointId);
            }
            assertThat(admin.webhooks().list()).extracting(WebhookEndpoint::endpointId).doesNotContain(endpointId);
        }
    }

    private boolean signedWith(String secret, WebhookReceiver.Received request) {
        return new StandardWebhooksVerifier(secret).verifies(request.id(), request.timestamp(), request.signature(),
                request.body(), server.clock().instant());
    }

    @Test
    void refusalsNameTheFieldAndAnApplicationKeyIsForbidden() {
        assertThatThrownBy(() -> admin.webhooks().register(URI.create("http://hooks.example.com/x")))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("url"));
        assertThatThrownBy(() -> admin.webhooks().register(URI.create("https://hooks.example.com/x"),
                List.of("no.such.type"), Optional.empty()))
                .isInstanceOfSatisfying(InvalidInputException.class,
                        e -> assertThat(e.field()).isEqualTo("eventTypes"));
        assertThatThrownBy(() -> client.webhooks().list())
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.code()).isEqualTo("FORBIDDEN"));
    }
}

package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Passkeys through the client, against the real server on its default relying party (localhost): the options
 * handed on as JSON, the browser's answers passed back as they came, and a refusal as its problem.
 */
class PasskeysTest {

    private static final String RP_ID = "localhost";
    private static final String ORIGIN = "http://localhost:8080";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final TestServer server = TestServer.shared();
    private final VerificationClient client = server.client();

    @Test
    void aPasskeyRegistersSignsInIsRenamedAndRevoked() {
        String user = newUser();
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        PasskeyOptions creation = client.passkeys().registrationOptions(user, Optional.of("ada"), Optional.empty());
        JsonNode options = JSON.readTree(creation.json());
        assertThat(options.get("challenge").asString()).isEqualTo(creation.challenge());
        assertThat(options.get("user").get("name").asString()).isEqualTo("ada");

        Passkey registered = client.passkeys().register(user, key.register(creation.challenge(), RP_ID, ORIGIN,
                options.get("user").get("id").asString()), Optional.of("Laptop"), ClientContext.none());
        assertThat(registered.credentialId()).isEqualTo(key.credentialId());
        assertThat(registered.lastUsedAt()).isEmpty();

        PasskeyOptions request = client.passkeys().signInOptions(Optional.empty());
        String assertion = key.sign(request.challenge(), RP_ID, ORIGIN);
        assertThat(client.passkeys().signIn(assertion, Optional.empty(), ClientContext.of("203.0.113.9", "junit")))
                .isEqualTo(new PasskeySignIn(user, key.credentialId()));
        assertThatThrownBy(() -> client.passkeys().signIn(assertion, Optional.empty(), ClientContext.none()))
                .isInstanceOfSatisfying(ProblemException.class, problem -> {
                    assertThat(problem.status()).isEqualTo(409);
                    assertThat(problem.code()).isEqualTo("PASSKEY_REFUSED");
                    assertThat(problem.property("reason")).contains("CHALLENGE_NOT_OPEN");
                });

        assertThat(client.passkeys().rename(user, key.credentialId(), "Old laptop")).isTrue();
        assertThat(client.passkeys().list(user)).extracting(Passkey::label).containsExactly("Old laptop");
        assertThat(client.passkeys().revoke(user, key.credentialId())).isTrue();
        assertThat(client.passkeys().revokeAll(user)).isZero();
        assertThat(client.passkeys().list(user)).isEmpty();
    }

    @Test
    void revokingEveryDeviceWithPasskeysRevokesBoth() {
        String user = newUser();
        PasskeyOptions creation = client.passkeys().registrationOptions(user, Optional.empty(), Optional.empty());
        client.passkeys().register(user, SoftwareAuthenticator.withCounter().register(creation.challenge(), RP_ID,
                ORIGIN, JSON.readTree(creation.json()).get("user").get("id").asString()), Optional.empty(),
                ClientContext.none());
        client.devices().register(DeviceRegistration.of(user, "laptop-" + user, "WEB"));

        assertThat(client.devices().revokeAllWithPasskeys(user)).isEqualTo(new RevokedCredentials(1, 1));
        assertThat(client.passkeys().list(user)).isEmpty();
        assertThat(client.devices().list(user)).isEmpty();
    }

    @Test
    void aCredentialThatIsNoJsonObjectIsRefusedBeforeAnyRequest() {
        assertThatThrownBy(() -> client.passkeys().signIn("[1]", Optional.empty(), ClientContext.none()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("credentialJson must be a JSON object");
    }
}

package dev.verificationservice.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Passkeys: {@code /v1/passkeys/...} and {@code /v1/users/{userId}/passkeys}. From
 * {@link VerificationClient#passkeys()}. The application's server relays: it asks for options, hands their JSON to
 * the browser, and passes the browser's {@code PublicKeyCredential.toJSON()} back as it came, so the browser never
 * holds the API key. A refused registration or sign-in is a {@link ProblemException} with code
 * {@code PASSKEY_REFUSED} (409; 429 once the attempts are spent) and its {@code reason} and {@code field}.
 */
public final class PasskeysClient {

    private final Transport transport;

    PasskeysClient(Transport transport) {
        this.transport = transport;
    }

    /** {@code POST /v1/passkeys/registration/options}: the creation options of a new passkey of the user. */
    public PasskeyOptions registrationOptions(String userId, Optional<String> userName, Optional<String> displayName) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("userId", Objects.requireNonNull(userId, "userId"));
        userName.ifPresent(name -> body.put("userName", name));
        displayName.ifPresent(name -> body.put("displayName", name));
        return options(transport.post(Operation.PASSKEY_REGISTRATION_OPTIONS, "/v1/passkeys/registration/options",
                body).json());
    }

    /** {@code POST /v1/passkeys/registration}: verifies the browser's response and stores the passkey. */
    public Passkey register(String userId, String credentialJson, Optional<String> label, ClientContext client) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("userId", Objects.requireNonNull(userId, "userId"));
        body.put("credential", transport.object("credentialJson", Objects.requireNonNull(credentialJson,
                "credentialJson")));
        label.ifPresent(text -> body.put("label", text));
        context(body, client);
        return passkey(transport.post(Operation.REGISTER_PASSKEY, "/v1/passkeys/registration", body).json());
    }

    /** {@code POST /v1/passkeys/sign-in/options}: for the named user, or for a username-less sign-in. */
    public PasskeyOptions signInOptions(Optional<String> userId) {
        Map<String, Object> body = new LinkedHashMap<>();
        userId.ifPresent(user -> body.put("userId", user));
        return options(transport.post(Operation.PASSKEY_SIGN_IN_OPTIONS, "/v1/passkeys/sign-in/options", body)
                .json());
    }

    /** {@code POST /v1/passkeys/sign-in}: verifies the browser's assertion; {@code userId} as the options named. */
    public PasskeySignIn signIn(String credentialJson, Optional<String> userId, ClientContext client) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("credential", transport.object("credentialJson", Objects.requireNonNull(credentialJson,
                "credentialJson")));
        userId.ifPresent(user -> body.put("userId", user));
        context(body, client);
        Fields answer = transport.post(Operation.SIGN_IN_PASSKEY, "/v1/passkeys/sign-in", body).json();
        return new PasskeySignIn(answer.text("userId"), answer.text("credentialId"));
    }

    /** {@code GET /v1/users/{userId}/passkeys}: oldest first. */
    public List<Passkey> list(String userId) {
        return transport.get(Operation.LIST_PASSKEYS, path(userId)).json().objects("passkeys").stream()
                .map(PasskeysClient::passkey).toList();
    }

    /** Renames one passkey; false when the user has none with that id. */
    public boolean rename(String userId, String credentialId, String label) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("label", Objects.requireNonNull(label, "label"));
        return transport.post(Operation.RENAME_PASSKEY, path(userId) + "/" + Transport.segment(Objects.requireNonNull(
                credentialId, "credentialId")) + "/label", body).json().integer("renamed") == 1;
    }

    /** Revokes one passkey; false when the user has none with that id. */
    public boolean revoke(String userId, String credentialId) {
        return transport.delete(Operation.REVOKE_PASSKEYS, path(userId) + "/" + Transport.segment(
                Objects.requireNonNull(credentialId, "credentialId"))).json().integer("revoked") == 1;
    }

    /** Revokes every passkey of the user; answers how many there were. */
    public int revokeAll(String userId) {
        return transport.delete(Operation.REVOKE_PASSKEYS, path(userId)).json().integer("revoked");
    }

    private static PasskeyOptions options(Fields answer) {
        return new PasskeyOptions(answer.json(), answer.text("challenge"), answer.instant("expiresAt"));
    }

    private static Passkey passkey(Fields passkey) {
        return new Passkey(passkey.text("credentialId"), passkey.text("label"), passkey.texts("transports"),
                passkey.bool("backupEligible"), passkey.bool("backedUp"), passkey.text("aaguid"),
                passkey.instant("createdAt"), passkey.optionalInstant("lastUsedAt"));
    }

    private static void context(Map<String, Object> body, ClientContext client) {
        Objects.requireNonNull(client, "client");
        client.ipAddress().ifPresent(ip -> body.put("ipAddress", ip));
        client.userAgent().ifPresent(agent -> body.put("userAgent", agent));
    }

    private static String path(String userId) {
        return "/v1/users/" + Transport.segment(Objects.requireNonNull(userId, "userId")) + "/passkeys";
    }
}

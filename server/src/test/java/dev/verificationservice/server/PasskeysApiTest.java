package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Passkeys over HTTP (contract §17), on the embedded store with its default relying party ({@code localhost},
 * {@code http://localhost:8080}): the options as a browser takes them, registration and sign-in, the lifecycle, and
 * every refusal a problem document naming the field, with nothing stored for malformed input. A
 * {@link SoftwareAuthenticator} plays the browser; the rules (a challenge used once, clones) are the contract
 * suite's, on every store.
 */
class PasskeysApiTest extends EmbeddedOnlyApiTest {

    private static final String RP_ID = "localhost";
    private static final String ORIGIN = "http://localhost:8080";

    @Test
    void aPasskeyRegistersSignsInAndIsListedRenamedAndRevoked() {
        String user = newUser();
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        Answer options = registrationOptions(user);
        assertThat(options.status()).isEqualTo(200);
        JsonNode body = options.json();
        assertThat(body.get("rp").get("id").asString()).isEqualTo(RP_ID);
        assertThat(body.get("user").get("id").asString()).isNotEqualTo(user).hasSize(43);
        assertThat(body.get("user").get("name").asString()).isEqualTo(user);
        assertThat(body.get("attestation").asString()).isEqualTo("none");
        assertThat(body.get("pubKeyCredParams").findValuesAsString("alg")).containsExactly("-7", "-8", "-257");
        assertThat(body.get("excludeCredentials")).isEmpty();

        Answer registered = register(user, key.register(body.get("challenge").asString(), RP_ID, ORIGIN,
                body.get("user").get("id").asString()), "Work laptop");
        assertThat(registered.status()).isEqualTo(201);
        assertThat(registered.text("credentialId")).isEqualTo(key.credentialId());
        assertThat(registered.text("label")).isEqualTo("Work laptop");
        assertThat(registered.json().has("publicKey")).as("no key material in any answer").isFalse();

        Answer signInOptions = api.post("/v1/passkeys/sign-in/options", Map.of("userId", user));
        assertThat(signInOptions.status()).isEqualTo(200);
        assertThat(signInOptions.json().get("allowCredentials").findValuesAsString("id"))
                .containsExactly(key.credentialId());
        String assertion = key.sign(signInOptions.text("challenge"), RP_ID, ORIGIN);
        Answer signedIn = signIn(assertion, user);
        assertThat(signedIn.status()).isEqualTo(200);
        assertThat(signedIn.json().get("valid").asBoolean()).isTrue();
        assertThat(signedIn.text("userId")).isEqualTo(user);
        // The same assertion again: its challenge is used up.
        Answer replayed = signIn(assertion, user);
        assertThat(replayed.status()).isEqualTo(409);
        assertThat(replayed.text("code")).isEqualTo("PASSKEY_REFUSED");
        assertThat(replayed.text("reason")).isEqualTo("CHALLENGE_NOT_OPEN");
        assertThat(replayed.text("field")).isEqualTo("credential");

        Answer renamed = api.post("/v1/users/" + user + "/passkeys/" + key.credentialId() + "/label",
                Map.of("label", "Old laptop"));
        assertThat(renamed.json().get("renamed").asInt()).isEqualTo(1);
        Answer listed = api.get("/v1/users/" + user + "/passkeys");
        assertThat(listed.json().get("passkeys").findValuesAsString("label")).containsExactly("Old laptop");
        assertThat(listed.json().get("passkeys").get(0).has("lastUsedAt")).isTrue();
        // The operator's view of the user shows them too, with no key material.
        JsonNode overview = admin().get("/v1/admin/users/" + user).json();
        assertThat(overview.get("passkeys").findValuesAsString("credentialId")).containsExactly(key.credentialId());
        assertThat(overview.toString()).doesNotContain("publicKey");
        assertThat(api.delete("/v1/users/" + user + "/passkeys/" + key.credentialId()).json().get("revoked").asInt())
                .isEqualTo(1);
        assertThat(api.get("/v1/users/" + user + "/passkeys").json().get("passkeys")).isEmpty();
        assertThat(auditEventTypes(user)).containsExactly("PASSKEY_REVOKED", "PASSKEY_VERIFICATION_FAILED",
                "PASSKEY_VERIFIED", "PASSKEY_ADDED");
    }

    @Test
    void aUsernameLessSignInNamesTheUserAndAnUnknownUserLooksLikeAKnownOne() {
        String user = newUser();
        SoftwareAuthenticator key = registered(user, SoftwareAuthenticator.synced());
        Answer options = api.post("/v1/passkeys/sign-in/options", Map.of());
        assertThat(options.json().get("allowCredentials")).isEmpty();

        Answer signedIn = signIn(key.sign(options.text("challenge"), RP_ID, ORIGIN), null);
        assertThat(signedIn.status()).isEqualTo(200);
        assertThat(signedIn.text("userId")).isEqualTo(user);

        Answer unknown = api.post("/v1/passkeys/sign-in/options", Map.of("userId", newUser()));
        assertThat(unknown.json().get("allowCredentials")).hasSize(1);
    }

    @Test
    void aResponseFromAnotherOriginOrForAnotherRpIsRefusedNamingTheCredentialAndStoresNoPasskey() {
        String user = newUser();
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        JsonNode options = registrationOptions(user).json();
        String challenge = options.get("challenge").asString();
        String handle = options.get("user").get("id").asString();

        Answer wrongOrigin = register(user, key.register(challenge, RP_ID, "http://localhost:9999", handle), null);
        assertThat(wrongOrigin.status()).isEqualTo(409);
        assertThat(wrongOrigin.text("reason")).isEqualTo("REJECTED");
        assertThat(wrongOrigin.text("check")).isEqualTo("BadOrigin");
        assertThat(wrongOrigin.text("field")).isEqualTo("credential");
        Answer wrongRp = register(user, key.register(challenge, "example.com", ORIGIN, handle), null);
        assertThat(wrongRp.status()).isEqualTo(409);
        assertThat(wrongRp.text("check")).isEqualTo("BadRpId");
        Answer unknownChallenge = register(user, key.register("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", RP_ID,
                ORIGIN, handle), null);
        assertThat(unknownChallenge.text("reason")).isEqualTo("CHALLENGE_NOT_OPEN");
        assertThat(api.get("/v1/users/" + user + "/passkeys").json().get("passkeys")).isEmpty();

        // The challenge is still open: the right response registers.
        assertThat(register(user, key.register(challenge, RP_ID, ORIGIN, handle), null).status()).isEqualTo(201);
    }

    @Test
    void malformedJsonBase64urlOrCborIsA400NamingTheFieldAndAnUnknownCredentialA409() {
        String user = newUser();
        registrationOptions(user);
        Answer notJson = api.post("/v1/passkeys/registration", "{\"userId\":\"" + user + "\",\"credential\":{");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.text("code")).isEqualTo("MALFORMED_JSON");
        Answer notAnObject = api.post("/v1/passkeys/registration", Map.of("userId", user, "credential", "text"));
        assertThat(notAnObject.status()).isEqualTo(400);
        Answer badBase64 = register(user, "{\"id\":\"!!\",\"rawId\":\"!!\",\"type\":\"public-key\",\"response\":"
                + "{\"clientDataJSON\":\"!!\",\"attestationObject\":\"!!\"}}", null);
        assertThat(badBase64.status()).isEqualTo(400);
        assertThat(badBase64.text("code")).isEqualTo("INVALID_INPUT");
        assertThat(badBase64.text("field")).isEqualTo("credential");
        Answer badCbor = register(user, "{\"id\":\"AAAA\",\"rawId\":\"AAAA\",\"type\":\"public-key\",\"response\":"
                + "{\"clientDataJSON\":\"e30\",\"attestationObject\":\"_w\"}}", null);
        assertThat(badCbor.status()).isEqualTo(400);
        assertThat(badCbor.text("field")).isEqualTo("credential");
        Answer missing = api.post("/v1/passkeys/sign-in", Map.of());
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.text("field")).isEqualTo("credential");

        SoftwareAuthenticator stranger = SoftwareAuthenticator.withCounter();
        Answer options = api.post("/v1/passkeys/sign-in/options", Map.of());
        Answer unknown = signIn(stranger.sign(options.text("challenge"), RP_ID, ORIGIN), null);
        assertThat(unknown.status()).isEqualTo(409);
        assertThat(unknown.text("reason")).isEqualTo("UNKNOWN_CREDENTIAL");
        assertThat(unknown.text("field")).isEqualTo("credential");
        assertThat(auditEventTypes(user)).isEmpty();
    }

    @Test
    void aSignInFromAnotherOriginRpOrChallengeOrWithoutItsUserHandleIsA409NamingTheCredentialAndUsesNothing() {
        String user = newUser();
        SoftwareAuthenticator key = registered(user, SoftwareAuthenticator.withCounter());
        String challenge = api.post("/v1/passkeys/sign-in/options", Map.of("userId", user)).text("challenge");

        Answer wrongOrigin = signIn(key.sign(challenge, RP_ID, "http://localhost:9999"), user);
        assertThat(wrongOrigin.status()).isEqualTo(409);
        assertThat(wrongOrigin.text("reason")).isEqualTo("REJECTED");
        assertThat(wrongOrigin.text("check")).isEqualTo("BadOrigin");
        assertThat(wrongOrigin.text("field")).isEqualTo("credential");
        Answer wrongRp = signIn(key.sign(challenge, "example.com", ORIGIN), user);
        assertThat(wrongRp.status()).isEqualTo(409);
        assertThat(wrongRp.text("check")).isEqualTo("BadRpId");
        Answer unknownChallenge = signIn(key.sign("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", RP_ID, ORIGIN), user);
        assertThat(unknownChallenge.status()).isEqualTo(409);
        assertThat(unknownChallenge.text("reason")).isEqualTo("CHALLENGE_NOT_OPEN");
        assertThat(unknownChallenge.text("field")).isEqualTo("credential");
        key.setUserHandle(null);
        String usernameLess = api.post("/v1/passkeys/sign-in/options", Map.of()).text("challenge");
        Answer noHandle = signIn(key.sign(usernameLess, RP_ID, ORIGIN), null);
        assertThat(noHandle.status()).isEqualTo(409);
        assertThat(noHandle.text("reason")).isEqualTo("UNKNOWN_CREDENTIAL");
        assertThat(noHandle.text("field")).isEqualTo("credential");
        Answer badBytes = signIn("{\"id\":\"AAAA\",\"rawId\":\"AAAA\",\"type\":\"public-key\",\"response\":"
                + "{\"clientDataJSON\":\"e30\",\"authenticatorData\":\"_w\",\"signature\":\"!!\"}}", user);
        assertThat(badBytes.status()).isEqualTo(400);
        assertThat(badBytes.text("field")).isEqualTo("credential");
        assertThat(auditEventTypes(user)).doesNotContain("PASSKEY_VERIFIED");

        // Nothing was used up: the first challenge, answered rightly, signs the user in.
        Answer signedIn = signIn(key.sign(challenge, RP_ID, ORIGIN), user);
        assertThat(signedIn.status()).isEqualTo(200);
        assertThat(signedIn.text("userId")).isEqualTo(user);
    }

    @Test
    void optionsAtTheCapAreRefusedNamingTheUser() {
        String user = newUser();
        for (int i = 0; i < 10; i++) {
            registered(user, SoftwareAuthenticator.withCounter());
        }
        Answer atCap = registrationOptions(user);
        assertThat(atCap.status()).isEqualTo(409);
        assertThat(atCap.text("code")).isEqualTo("PASSKEY_REFUSED");
        assertThat(atCap.text("reason")).isEqualTo("CAP_REACHED");
        assertThat(atCap.text("field")).isEqualTo("userId");
        assertThat(api.get("/v1/users/" + user + "/passkeys").json().get("passkeys")).hasSize(10);
    }

    @Test
    void revokingEveryDeviceLeavesThePasskeysUnlessAskedAndWithPasskeysTrueRevokesBoth() {
        String user = newUser();
        SoftwareAuthenticator first = registered(user, SoftwareAuthenticator.withCounter());
        registered(user, SoftwareAuthenticator.withCounter());
        registerDevice(user, "phone-" + user);

        Answer devicesOnly = api.delete("/v1/users/" + user + "/devices");
        assertThat(devicesOnly.json().get("revoked").asInt()).isEqualTo(1);
        assertThat(devicesOnly.json().has("passkeysRevoked")).isFalse();
        assertThat(api.get("/v1/users/" + user + "/passkeys").json().get("passkeys")).hasSize(2);

        Answer badFlag = api.delete("/v1/users/" + user + "/devices?passkeys=maybe");
        assertThat(badFlag.status()).isEqualTo(400);
        assertThat(badFlag.text("field")).isEqualTo("passkeys");

        registerDevice(user, "laptop-" + user);
        Answer both = api.delete("/v1/users/" + user + "/devices?passkeys=true");
        assertThat(both.status()).isEqualTo(200);
        assertThat(both.json().get("revoked").asInt()).isEqualTo(1);
        assertThat(both.json().get("passkeysRevoked").asInt()).isEqualTo(2);
        assertThat(api.get("/v1/users/" + user + "/passkeys").json().get("passkeys")).isEmpty();
        assertThat(api.get("/v1/users/" + user + "/devices").json().get("devices")).isEmpty();
        Answer signIn = signIn(first.sign(api.post("/v1/passkeys/sign-in/options", Map.of()).text("challenge"), RP_ID,
                ORIGIN), null);
        assertThat(signIn.status()).isEqualTo(409);
        assertThat(signIn.text("reason")).isEqualTo("UNKNOWN_CREDENTIAL");
        // Run again (a retry): nothing more to revoke.
        Answer again = api.delete("/v1/users/" + user + "/devices?passkeys=true");
        assertThat(again.json().get("revoked").asInt()).isZero();
        assertThat(again.json().get("passkeysRevoked").asInt()).isZero();
        assertThat(auditEventTypes(user)).filteredOn("PASSKEY_REVOKED"::equals).hasSize(2);
        assertThat(auditEventTypes(user)).filteredOn("DEVICES_REVOKED"::equals).hasSize(3);
    }

    private void registerDevice(String user, String deviceId) {
        assertThat(api.post("/v1/devices", Map.of("userId", user, "deviceId", deviceId, "deviceType", "WEB"))
                .status()).isEqualTo(201);
    }

    private Answer registrationOptions(String user) {
        return api.post("/v1/passkeys/registration/options", Map.of("userId", user));
    }

    private Answer register(String user, String credential, String label) {
        Map<String, Object> body = new HashMap<>();
        body.put("userId", user);
        body.put("credential", ApiClient.JSON.readTree(credential));
        if (label != null) {
            body.put("label", label);
        }
        return api.post("/v1/passkeys/registration", body);
    }

    private Answer signIn(String assertion, String user) {
        Map<String, Object> body = new HashMap<>();
        body.put("credential", ApiClient.JSON.readTree(assertion));
        if (user != null) {
            body.put("userId", user);
        }
        return api.post("/v1/passkeys/sign-in", body);
    }

    private SoftwareAuthenticator registered(String user, SoftwareAuthenticator key) {
        JsonNode options = registrationOptions(user).json();
        assertThat(register(user, key.register(options.get("challenge").asString(), RP_ID, ORIGIN,
                options.get("user").get("id").asString()), null).status()).isEqualTo(201);
        return key;
    }
}

package dev.verificationservice.spring.security.loginapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.jayway.jsonpath.JsonPath;
import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import dev.verificationservice.testsupport.time.MutableClock;
import jakarta.servlet.http.Cookie;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;

/**
 * Spring Security's passkeys ({@code webAuthn()}) on this store, through Spring's own filters and the JSON its
 * pages send, answered by a software authenticator: registration options, registration, sign-in options and
 * sign-in; the challenges are items on the store (the browser holds only their name), a replayed sign-in is
 * refused, and of concurrent submissions of one assertion exactly one signs in. Run on each store.
 */
abstract class PasskeyLoginContract {

    static final String ORIGIN = "http://localhost:8080";

    /** Each context's own clock, which a test moves instead of waiting. */
    @TestConfiguration(proxyBeanMethods = false)
    static class MovableClock {
        @Bean
        MutableClock clock() {
            return new MutableClock(Instant.parse("2026-03-01T09:00:00Z"));
        }
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    Verification verification;

    @Autowired
    VerificationStore store;

    @Autowired
    MutableClock clock;

    @Test
    void aPasskeyRegistersSignsInOnceAndItsReplayIsRefused() throws Exception {
        SoftwareAuthenticator authenticator = SoftwareAuthenticator.withCounter();
        String credentialId = register("alice", authenticator);

        Passkey stored = store.passkeys().findPasskey(credentialId).orElseThrow();
        assertThat(stored.userId()).isEqualTo("user-alice");
        assertThat(stored.userHandle()).as("a random user handle, never the user id or the username")
                .isNotIn("user-alice", "alice").hasSize(43);
        assertThat(stored.label()).isEqualTo("Laptop");

        Cookie signInCookie = signInOptionsCookie();
        String challenge = signInCookie.getValue();
        String assertion = authenticator.sign(challenge, "localhost", ORIGIN);
        MvcResult signedIn = signIn(assertion, signInCookie);
        assertThat(signedIn.getResponse().getStatus()).isEqualTo(200);
        assertThat(signedIn.getResponse().getContentAsString()).contains("\"authenticated\":true");
        MockHttpSession session = (MockHttpSession) signedIn.getRequest().getSession(false);
        assertThat(mvc.perform(get("/").session(session)).andReturn().getResponse().getContentAsString())
                .isEqualTo("alice");

        assertThat(store.passkeys().findChallenge(challenge).orElseThrow().consumedBy())
                .as("the challenge is used up on the store, not in a session").isPresent();
        assertThat(signIn(assertion, signInCookie).getResponse().getStatus())
                .as("the same assertion again, with the same challenge cookie").isEqualTo(401);
        assertThat(types(audit("user-alice"))).contains(AuditEventType.PASSKEY_ADDED,
                AuditEventType.PASSKEY_VERIFIED);
    }

    @Test
    void ofConcurrentSubmissionsOfOneAssertionExactlyOneSignsIn() throws Exception {
        SoftwareAuthenticator authenticator = SoftwareAuthenticator.withCounter();
        register("bob", authenticator);
        Cookie cookie = signInOptionsCookie();
        String assertion = authenticator.sign(cookie.getValue(), "localhost", ORIGIN);

        int browsers = 10;
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(browsers);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < browsers; i++) {
                answers.add(pool.submit((Callable<Integer>) () -> {
                    gate.await();
                    return signIn(assertion, cookie).getResponse().getStatus();
                }));
            }
            gate.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get());
            }
            assertThat(statuses).filteredOn(status -> status == 200).hasSize(1);
            assertThat(statuses).filteredOn(status -> status == 401).hasSize(browsers - 1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(types(audit("user-bob"))).filteredOn(type -> type == AuditEventType.PASSKEY_VERIFIED).hasSize(1);
    }

    @Test
    void anAssertionForAnotherChallengeOrAnExpiredOneIsRefused() throws Exception {
        SoftwareAuthenticator authenticator = SoftwareAuthenticator.withCounter();
        register("alice", authenticator);
        Cookie first = signInOptionsCookie();
        Cookie second = signInOptionsCookie();
        assertThat(signIn(authenticator.sign(first.getValue(), "localhost", ORIGIN), second).getResponse()
                .getStatus()).as("answers the first options, sent with the second's cookie").isEqualTo(401);

        Cookie late = signInOptionsCookie();
        String assertion = authenticator.sign(late.getValue(), "localhost", ORIGIN);
        clock.advance(Duration.ofMinutes(6));
        assertThat(signIn(assertion, late).getResponse().getStatus()).as("past the challenge's lifetime")
                .isEqualTo(401);
        assertThat(store.passkeys().findChallenge(late.getValue()).orElseThrow().consumedBy()).isEmpty();
    }

    @Test
    void aRefusedRegistrationIsA400NamingTheFieldAndStoresNothing() throws Exception {
        SoftwareAuthenticator authenticator = SoftwareAuthenticator.withCounter();
        MvcResult options = mvc.perform(post("/webauthn/register/options").with(user("alice")).with(csrf()))
                .andReturn();
        Cookie cookie = cookie(options.getResponse(), "VERIFICATION_PASSKEY_REGISTRATION");
        String body = options.getResponse().getContentAsString();
        String response = authenticator.register(JsonPath.read(body, "$.challenge"), "localhost",
                "https://evil.example", JsonPath.read(body, "$.user.id"));

        MockHttpServletResponse refused = mvc.perform(post("/webauthn/register").with(user("alice")).with(csrf())
                .cookie(cookie).contentType(MediaType.APPLICATION_JSON)
                .content("{\"publicKey\":{\"credential\":" + response + ",\"label\":\"Laptop\"}}")).andReturn()
                .getResponse();

        assertThat(refused.getStatus()).isEqualTo(400);
        assertThat(refused.getContentType()).startsWith("application/problem+json");
        assertThat(JsonPath.<String>read(refused.getContentAsString(), "$.field")).isEqualTo("BadOrigin");
        assertThat(store.passkeys().findPasskey(authenticator.credentialId())).isEmpty();
    }

    @Test
    void aUserAtTheCapIsRefusedOptionsWithA409NamingTheField() throws Exception {
        for (int i = 0; i < PasskeyPolicy.DEFAULT_MAX_PASSKEYS; i++) {
            register("carol", SoftwareAuthenticator.withCounter());
        }
        MockHttpServletResponse refused = mvc.perform(post("/webauthn/register/options").with(user("carol"))
                .with(csrf())).andReturn().getResponse();

        assertThat(refused.getStatus()).as("a refusal, as the HTTP API's 409 PASSKEY_REFUSED").isEqualTo(409);
        assertThat(JsonPath.<String>read(refused.getContentAsString(), "$.field")).isEqualTo("userId");
        assertThat(refused.getCookie("VERIFICATION_PASSKEY_REGISTRATION")).as("no challenge handed out").isNull();
    }

    @Test
    void theRegistrationPageListsTheUsersPasskeysAndItsDeleteRevokesOnlyTheirOwn() throws Exception {
        String alices = register("alice", SoftwareAuthenticator.withCounter());
        String bobs = register("bob", SoftwareAuthenticator.withCounter());

        String page = mvc.perform(get("/webauthn/register").with(user("alice"))).andReturn().getResponse()
                .getContentAsString();
        assertThat(page).contains(alices).doesNotContain(bobs);

        assertThat(mvc.perform(delete("/webauthn/register/" + bobs).with(user("alice")).with(csrf())).andReturn()
                .getResponse().getStatus()).as("another user's passkey").isEqualTo(403);
        assertThat(mvc.perform(delete("/webauthn/register/" + alices).with(user("alice")).with(csrf())).andReturn()
                .getResponse().getStatus()).isEqualTo(204);
        assertThat(store.passkeys().findPasskey(alices)).isEmpty();
        assertThat(store.passkeys().findPasskey(bobs)).isPresent();
        assertThat(types(audit("user-alice"))).contains(AuditEventType.PASSKEY_REVOKED);
    }

    /** Registers a passkey for the signed-in user through Spring's endpoints; answers its credential id. */
    String register(String username, SoftwareAuthenticator authenticator) throws Exception {
        MvcResult options = mvc.perform(post("/webauthn/register/options").with(user(username)).with(csrf()))
                .andReturn();
        assertThat(options.getResponse().getStatus()).isEqualTo(200);
        Cookie cookie = cookie(options.getResponse(), "VERIFICATION_PASSKEY_REGISTRATION");
        String body = options.getResponse().getContentAsString();
        String challenge = JsonPath.read(body, "$.challenge");
        assertThat(cookie.getValue()).as("the browser holds the challenge's name only").isEqualTo(challenge);
        assertThat(store.passkeys().findChallenge(challenge).map(PasskeyChallenge::purpose))
                .contains(PasskeyChallenge.Purpose.REGISTRATION);

        String response = authenticator.register(challenge, "localhost", ORIGIN, JsonPath.read(body, "$.user.id"));
        MockHttpServletResponse registered = mvc.perform(post("/webauthn/register").with(user(username))
                .with(csrf()).cookie(cookie).contentType(MediaType.APPLICATION_JSON)
                .content("{\"publicKey\":{\"credential\":" + response + ",\"label\":\"Laptop\"}}")).andReturn()
                .getResponse();
        assertThat(registered.getStatus()).as(registered.getContentAsString()).isEqualTo(200);
        assertThat(registered.getContentAsString()).contains("\"success\":true");
        return authenticator.credentialId();
    }

    Cookie signInOptionsCookie() throws Exception {
        return signInOptionsCookie(mvc);
    }

    /** Sign-in options from this instance ({@code mvc}): the cookie naming their challenge. */
    static Cookie signInOptionsCookie(MockMvc mvc) throws Exception {
        MvcResult options = mvc.perform(post("/webauthn/authenticate/options").with(csrf())).andReturn();
        assertThat(options.getResponse().getStatus()).isEqualTo(200);
        Cookie cookie = cookie(options.getResponse(), "VERIFICATION_PASSKEY_SIGN_IN");
        assertThat(JsonPath.<String>read(options.getResponse().getContentAsString(), "$.challenge"))
                .isEqualTo(cookie.getValue());
        return cookie;
    }

    MvcResult signIn(String assertion, Cookie cookie) throws Exception {
        return signIn(mvc, assertion, cookie);
    }

    /** A sign-in on this instance ({@code mvc}) with an assertion and the cookie of its options. */
    static MvcResult signIn(MockMvc mvc, String assertion, Cookie cookie) throws Exception {
        return mvc.perform(post("/login/webauthn").with(csrf()).cookie(cookie)
                .contentType(MediaType.APPLICATION_JSON).content(assertion)).andReturn();
    }

    private static Cookie cookie(MockHttpServletResponse response, String name) {
        Cookie cookie = response.getCookie(name);
        assertThat(cookie).as("the cookie " + name).isNotNull();
        assertThat(cookie.isHttpOnly()).isTrue();
        return cookie;
    }

    private List<AuditEntry> audit(String userId) {
        return verification.audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries();
    }

    private static List<AuditEventType> types(List<AuditEntry> entries) {
        return entries.stream().map(AuditEntry::eventType).toList();
    }
}

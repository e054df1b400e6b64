package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.verificationservice.testsupport.browser.HeadlessChromium;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticator;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticatorOptions;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A passkey registered and used from a real browser: Chromium (headless, through chromedriver) with WebDriver's
 * virtual authenticator (CTAP2, internal, discoverable credentials, user verification) opens a small page whose own
 * server relays each step to the HTTP API with the API key, so the page never holds it, as an application's would.
 * The page is served from {@code http://localhost:<port>}, the relying party's one origin (RP ID {@code localhost}),
 * and calls the browser's own {@code PublicKeyCredential.parseCreationOptionsFromJSON}, {@code parseRequestOptions
 * FromJSON} and {@code toJSON}: the options are the API's as they came, and so are the browser's answers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + PasskeyBrowserTest.API_KEY,
        "verification.secret-keys=" + PasskeyBrowserTest.HMAC_KEY,
        "verification.passkeys.rp-id=localhost", "verification.passkeys.rp-name=Relay Test"})
@Import(TestClockConfiguration.class)
@ExtendWith(HeadlessChromium.Required.class)
class PasskeyBrowserTest {

    static final String API_KEY = "passkey-api-key-0123456789abcdefghijklm";
    static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";

    /** The application's page and its relay: started before the service, whose one allowed origin it is. */
    private static HttpServer page;
    private static volatile int apiPort;
    private static HeadlessChromium browser;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void pageAndStore(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", () -> uncheckedTempDirectory());
        page = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        page.createContext("/", PasskeyBrowserTest::serve);
        page.start();
        registry.add("verification.passkeys.origins", () -> origin());
    }

    private static String uncheckedTempDirectory() {
        try {
            return Files.createTempDirectory("verification-passkey-browser").toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String origin() {
        return "http://localhost:" + page.getAddress().getPort();
    }

    @BeforeAll
    static void startBrowser() throws IOException {
        browser = HeadlessChromium.startUnlessSkipped();
    }

    @AfterAll
    static void stop() throws IOException {
        if (browser != null) {
            browser.close();
        }
        if (page != null) {
            page.stop(0);
        }
    }

    @Test
    void aPasskeyMadeInChromiumSignsInByNameAndWithoutOne() {
        apiPort = port;
        VirtualAuthenticator authenticator = browser.driver.addVirtualAuthenticator(new VirtualAuthenticatorOptions()
                .setProtocol(VirtualAuthenticatorOptions.Protocol.CTAP2)
                .setTransport(VirtualAuthenticatorOptions.Transport.INTERNAL)
                .setHasResidentKey(true).setHasUserVerification(true).setIsUserVerified(true)
                .setIsUserConsenting(true));
        try {
            browser.driver.get(origin() + "/");
            String user = "browser-user-" + System.nanoTime();

            JsonNode registered = run("return register(arguments[0]);", user);
            assertThat(registered.get("status").asInt()).as(registered.toString()).isEqualTo(201);
            String credentialId = registered.get("body").get("credentialId").asString();
            assertThat(authenticator.getCredentials()).hasSize(1);
            assertThat(authenticator.getCredentials().get(0).isResidentCredential()).isTrue();

            JsonNode named = run("return signIn(arguments[0]);", user);
            assertThat(named.get("status").asInt()).as(named.toString()).isEqualTo(200);
            assertThat(named.get("body").get("userId").asString()).isEqualTo(user);
            assertThat(named.get("body").get("credentialId").asString()).isEqualTo(credentialId);

            JsonNode usernameLess = run("return signIn(null);", null);
            assertThat(usernameLess.get("status").asInt()).as(usernameLess.toString()).isEqualTo(200);
            assertThat(usernameLess.get("body").get("userId").asString()).isEqualTo(user);

            // Conditional UI: the page asks with mediation 'conditional' beside an input marked for passkey autofill.
            JsonNode autofill = run("return signInFromAutofill();", null);
            assertThat(autofill.get("status").asInt()).as(autofill.toString()).isEqualTo(200);
            assertThat(autofill.get("body").get("userId").asString()).isEqualTo(user);

            ApiClient api = new ApiClient(port, API_KEY);
            JsonNode listed = api.get("/v1/users/" + user + "/passkeys").json().get("passkeys");
            assertThat(listed).hasSize(1);
            assertThat(listed.get(0).get("credentialId").asString()).isEqualTo(credentialId);
            assertThat(listed.get(0).get("transports").toString()).contains("internal");
            assertThat(browser.driver.getPageSource()).as("the page never holds the API key").doesNotContain(API_KEY);
        } finally {
            browser.driver.removeVirtualAuthenticator(authenticator);
        }
    }

    /** Runs the page's async function and answers what it resolved to: {status, body} of the relayed call. */
    private static JsonNode run(String script, String argument) {
        Object answer = browser.driver.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "(async () => { " + script + " })().then(done, e => done(JSON.stringify({status: 0, body: "
                + "{error: String(e)}})));", argument);
        return ApiClient.JSON.readTree(String.valueOf(answer));
    }

    // The application: its page, and the server side that holds the API key

    private static final String PAGE = """
            <!doctype html><html><head><meta charset="utf-8"><title>Passkeys</title></head><body>
            <p>Passkey relay test page</p>
            <input id="username" autocomplete="username webauthn">
            <script>
            async function relay(path, body) {
              const answer = await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},
                body: JSON.stringify(body)});
              return {status: answer.status, body: await answer.json()};
            }
            async function register(userId) {
              const options = await relay('/relay/registration/options', {userId: userId});
              const credential = await navigator.credentials.create({
                publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.body)});
              return JSON.stringify(await relay('/relay/registration',
                {userId: userId, credential: credential.toJSON(), label: 'Chromium'}));
            }
            async function signIn(userId) {
              const options = await relay('/relay/sign-in/options', userId ? {userId: userId} : {});
              const credential = await navigator.credentials.get({
                publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body)});
              return JSON.stringify(await relay('/relay/sign-in',
                userId ? {userId: userId, credential: credential.toJSON()} : {credential: credential.toJSON()}));
            }
            async function signInFromAutofill() {
              if (!await PublicKeyCredential.isConditionalMediationAvailable()) {
                return JSON.stringify({status: -1, body: {}});
              }
              const options = await relay('/relay/sign-in/options', {});
              const credential = await navigator.credentials.get({mediation: 'conditional',
                publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body)});
              return JSON.stringify(await relay('/relay/sign-in', {credential: credential.toJSON()}));
            }
            </script></body></html>
            """;

    private static final Map<String, String> RELAYED = Map.of(
            "/relay/registration/options", "/v1/passkeys/registration/options",
            "/relay/registration", "/v1/passkeys/registration",
            "/relay/sign-in/options", "/v1/passkeys/sign-in/options",
            "/relay/sign-in", "/v1/passkeys/sign-in");

    private static void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/") && exchange.getRequestMethod().equals("GET")) {
                answer(exchange, 200, "text/html; charset=utf-8", PAGE);
                return;
            }
            String target = RELAYED.get(path);
            if (target == null || !exchange.getRequestMethod().equals("POST")) {
                answer(exchange, 404, "text/plain", "no such page");
                return;
            }
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            HttpResponse<String> relayed = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort
                            + target)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + API_KEY).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            answer(exchange, relayed.statusCode(), "application/json", relayed.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}

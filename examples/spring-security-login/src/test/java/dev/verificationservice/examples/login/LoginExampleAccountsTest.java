package dev.verificationservice.examples.login;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.spring.security.LoginAccount;
import dev.verificationservice.spring.security.LoginAccounts;
import java.io.IOException;
import java.io.InputStream;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example's README, against the application: every account of its table signs in through the form login with
 * its password (and not with another), has the email the table says, and the table lists them all; a login link
 * shows on {@code /outbox}; every address the README names is on the application's own port.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        classes = {LoginExampleApplication.class, LoginExampleBrowserTest.Parts.class})
class LoginExampleAccountsTest {

    private static final Path README = Path.of("README.md").toAbsolutePath();
    private static final Pattern ACCOUNT = Pattern.compile("^\\| `([^`]+)` \\| `([^`]+)` \\| `([^`]+)` \\|$");
    private static final Pattern CSRF = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"");

    record Account(String username, String password, String email) {
    }

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-example-login")::toString);
    }

    @LocalServerPort
    int port;

    @Autowired
    LoginAccounts accounts;

    @Autowired
    LoginExampleBrowserTest.AwaitableExecutor linkSender;

    @Test
    void everyAccountOfTheReadmeSignsInWithItsPasswordOnly() throws Exception {
        List<Account> listed = accounts();
        assertThat(listed).extracting(Account::username).as("the README's accounts: all the application has")
                .containsExactlyInAnyOrderElementsOf(LoginExampleApplication.EMAILS.keySet());
        for (Account account : listed) {
            assertThat(signIn(account.username(), account.password())).as(account.username()).endsWith("/");
            assertThat(signIn(account.username(), account.password() + "x")).as(account.username() + ", wrong password")
                    .endsWith("/login?error");
            assertThat(accounts.findByUsername(account.username())).map(LoginAccount::email).as(account.username())
                    .contains(account.email());
        }
    }

    @Autowired
    UserDetailsService users;

    /**
     * Spring Security hashes the password given for an unknown username with the configured encoder, so a known
     * username answers as slowly only when its password is stored hashed by that encoder too, not {@code {noop}}.
     */
    @Test
    void everyAccountsPasswordIsStoredHashedSoKnownAndUnknownUsernamesCostTheSame() throws Exception {
        for (Account account : accounts()) {
            String stored = users.loadUserByUsername(account.username()).getPassword();
            assertThat(stored).as(account.username()).startsWith("{bcrypt}").doesNotContain(account.password());
            assertThat(PasswordEncoderFactories.createDelegatingPasswordEncoder().matches(account.password(), stored)).as(account.username()).isTrue();
        }
    }

    @Test
    void aFirstRequestsRedirectCarriesNoSessionIdInTheUrl() throws Exception {
        HttpResponse<Void> response = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()
                .send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/")).build(),
                        HttpResponse.BodyHandlers.discarding());
        assertThat(response.statusCode()).isEqualTo(302);
        assertThat(response.headers().firstValue("Location")).hasValueSatisfying(location ->
                assertThat(location).endsWith("/login").doesNotContainIgnoringCase("jsessionid"));
    }

    @Test
    void aLoginLinkShowsOnTheOutboxPage() throws Exception {
        Account account = accounts().get(0);
        Browser browser = new Browser();
        String sent = browser.post("/ott/generate", Map.of("username", account.username(),
                "_csrf", browser.csrf())).headers().firstValue("Location").orElseThrow();
        assertThat(sent).endsWith("/ott/sent");
        linkSender.awaitAll();
        assertThat(browser.get("/outbox").body()).contains("To: " + account.email(), "/login/ott?token=");
    }

    @Test
    void theReadmeNamesTheApplicationsPort() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/application.properties")) {
            properties.load(in);
        }
        Matcher addresses = Pattern.compile("http://localhost:(\\d+)").matcher(Files.readString(README));
        List<String> ports = new ArrayList<>();
        while (addresses.find()) {
            ports.add(addresses.group(1));
        }
        assertThat(ports).isNotEmpty().containsOnly(properties.getProperty("server.port"));
    }

    @Test
    void theHomePageSendsAStrangerToSignIn() throws Exception {
        assertThat(new Browser().get("/").headers().firstValue("Location")).hasValueSatisfying(
                location -> assertThat(location).endsWith("/login"));
    }

    private static List<Account> accounts() throws IOException {
        List<Account> accounts = new ArrayList<>();
        for (String line : Files.readAllLines(README)) {
            Matcher row = ACCOUNT.matcher(line);
            if (row.matches()) {
                accounts.add(new Account(row.group(1), row.group(2), row.group(3)));
            }
        }
        assertThat(accounts).as("the accounts table of %s", README).isNotEmpty();
        return accounts;
    }

    /** Where the form login sends the browser: the home page when signed in, {@code /login?error} otherwise. */
    private String signIn(String username, String password) throws IOException, InterruptedException {
        Browser browser = new Browser();
        HttpResponse<String> answer = browser.post("/login", Map.of("username", username, "password", password,
                "_csrf", browser.csrf()));
        String location = answer.headers().firstValue("Location").orElseThrow();
        if (location.endsWith("/")) {
            assertThat(browser.get("/").body()).contains("<span id=\"user\">" + username + "</span>");
        }
        return location;
    }

    /** One browser: its own cookies, redirects not followed (where they go is what is checked). */
    private final class Browser {
        private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER).build();

        String csrf() throws IOException, InterruptedException {
            Matcher token = CSRF.matcher(get("/login").body());
            assertThat(token.find()).as("the sign-in page's CSRF token").isTrue();
            return token.group(1);
        }

        HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return client.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, Map<String, String> form) throws IOException, InterruptedException {
            String body = form.entrySet().stream().map(field -> field.getKey() + "="
                    + URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
            return client.send(HttpRequest.newBuilder(uri(path)).header("Content-Type",
                    "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        private URI uri(String path) {
            return URI.create("http://localhost:" + port + path);
        }
    }
}

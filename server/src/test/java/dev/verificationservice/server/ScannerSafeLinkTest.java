package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.verificationservice.server.ApiClient.Answer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A mail scanner (Outlook Safe Links, Defender, Barracuda) opens every link in an email before the person does,
 * often several times and with HEAD. The page behind the link must therefore only {@code check} the code when it
 * is opened, and {@code verify} it only on the person's explicit POST (docs/messages.md, "Links that survive mail
 * scanners"). The page here is the integration guide's example, as a JDK HTTP server that calls the service; the
 * test plays the scanner, then the person.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY})
@Import(TestClockConfiguration.class)
class ScannerSafeLinkTest {

    /** The application's reset page: the service's port, known once the service has started. */
    static final AtomicReference<ApiClient> SERVICE = new AtomicReference<>();
    static HttpServer page;

    @LocalServerPort
    int port;

    ApiClient api;

    @DynamicPropertySource
    static void resetPage(DynamicPropertyRegistry registry) throws IOException {
        page = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        page.createContext("/reset-password", ScannerSafeLinkTest::handle);
        page.start();
        registry.add("verification.link-url",
                () -> "http://127.0.0.1:" + page.getAddress().getPort() + "/reset-password?code={code}");
        registry.add("verification.data-dir", Files.createTempDirectory("verification-scanner-test")::toString);
    }

    @AfterAll
    static void stopPage() {
        page.stop(0);
    }

    @BeforeEach
    void connect() {
        api = new ApiClient(port, AbstractApiTest.API_KEY);
        SERVICE.set(api);
    }

    /**
     * The guide's page. GET and HEAD (a person's browser, a scanner, a link preview) only check the code and show a
     * form; POST (the form's button) verifies it, and only then would the password change.
     */
    static void handle(HttpExchange exchange) throws IOException {
        ApiClient service = SERVICE.get();
        String method = exchange.getRequestMethod();
        byte[] body;
        int status;
        if (method.equals("GET") || method.equals("HEAD")) {
            String code = parameter(exchange.getRequestURI().getRawQuery(), "code");
            Answer check = service.post("/v1/codes/check", Map.of("code", code, "codeType", "PASSWORD_RESET"));
            boolean valid = check.json().get("valid").asBoolean();
            status = valid ? 200 : 410;
            body = (valid ? "<form method=\"post\"><input type=\"hidden\" name=\"code\" value=\"" + code + "\">"
                    + "<input type=\"password\" name=\"password\"><button>Set my new password</button></form>"
                    : "This link has expired or was already used (" + check.text("reason") + ").")
                    .getBytes(StandardCharsets.UTF_8);
        } else if (method.equals("POST")) {
            String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Answer verified = service.post("/v1/codes/verify", Map.of("code", parameter(form, "code"),
                    "codeType", "PASSWORD_RESET"));
            boolean valid = verified.json().get("valid").asBoolean();
            status = valid ? 200 : 410;
            body = (valid ? "Password changed for " + verified.text("userId")
                    : "Not changed: " + verified.text("reason")).getBytes(StandardCharsets.UTF_8);
        } else {
            status = 405;
            body = new byte[0];
        }
        exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
        if (method.equals("HEAD")) {
            exchange.sendResponseHeaders(status, -1);
        } else {
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }

    private static String parameter(String query, String name) {
        for (String pair : query == null ? new String[0] : query.split("&")) {
            String[] parts = pair.split("=", 2);
            if (parts[0].equals(name) && parts.length == 2) {
                return URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
            }
        }
        return "";
    }

    @Test
    void aScannerOpeningTheLinkManyTimesLeavesItForThePersonsPost() throws Exception {
        String user = "scanned-user-" + System.nanoTime();
        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET",
                "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com"));
        assertThat(sent.status()).isEqualTo(202);
        String body = api.get("/dev/outbox").json().get("messages").get(0).get("body").asString();
        Matcher link = Pattern.compile("http://127\\.0\\.0\\.1:[0-9]+/reset-password\\?code=[A-Za-z0-9_%-]+").matcher(body);
        assertThat(link.find()).as(body).isTrue();
        URI url = URI.create(link.group());

        // The scanner: GET several times (with and without a browser's headers), and HEAD.
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (String agent : List.of("Microsoft Office Protocol Discovery", "BarracudaCentral", "Mozilla/5.0 SafeLinks")) {
            HttpResponse<String> opened = http.send(HttpRequest.newBuilder(url).header("User-Agent", agent).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(opened.statusCode()).isEqualTo(200);
            assertThat(opened.body()).contains("<form method=\"post\">");
        }
        HttpResponse<Void> head = http.send(HttpRequest.newBuilder(url).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.discarding());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(auditEvents(user)).doesNotContain("CODE_VERIFIED");

        // The person opens the link too, and presses the button: the POST verifies.
        assertThat(http.send(HttpRequest.newBuilder(url).GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        String code = URLDecoder.decode(url.getRawQuery().substring("code=".length()), StandardCharsets.UTF_8);
        HttpResponse<String> pressed = http.send(HttpRequest.newBuilder(url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("code=" + code + "&password=correct-horse")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(pressed.statusCode()).isEqualTo(200);
        assertThat(pressed.body()).isEqualTo("Password changed for " + user);

        // Used up now: opening the link again says so, and a second POST changes nothing.
        HttpResponse<String> again = http.send(HttpRequest.newBuilder(url).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(again.statusCode()).isEqualTo(410);
        assertThat(again.body()).contains("USED");
        HttpResponse<String> replay = http.send(HttpRequest.newBuilder(url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("code=" + code)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(replay.statusCode()).isEqualTo(410);
        assertThat(auditEvents(user).stream().filter("CODE_VERIFIED"::equals)).hasSize(1);
    }

    private List<String> auditEvents(String user) {
        List<String> types = new java.util.ArrayList<>();
        api.get("/v1/users/" + user + "/audit?limit=100").json().get("events")
                .forEach(event -> types.add(event.get("eventType").asString()));
        return types;
    }
}

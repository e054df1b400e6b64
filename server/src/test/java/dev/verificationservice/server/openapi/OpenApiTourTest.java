package dev.verificationservice.server.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ProjectFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The README's API tour, run as it is written (its {@code sh} block, with bash and curl) through a
 * {@link ValidatingProxy} in front of the service: every request and every answer is checked against the
 * service's own {@code /v3/api-docs}. Every answer must match the document (its status is documented for the
 * operation, its headers and body match that status's schema); every request the service accepts must match it
 * too, and a request the service refuses as bad input must break it (the document tells the rule the service
 * applied). A second test shows that the validator does catch answers that break the document.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + OpenApiTourTest.API_KEY,
        "verification.secret-keys=SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA="})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiTourTest {

    static final String API_KEY = "tour-api-key-0123456789abcdefghijklmnopq";
    private static final Pattern TOUR = Pattern.compile("### A tour\\n.*?```sh\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern TOTP_TOUR = Pattern.compile("### Authenticator apps\\n.*?```sh\\n(.*?)```",
            Pattern.DOTALL);
    private static final String TOUR_API_LINE = "API=http://localhost:8080";
    private static Path dataDirectory;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        dataDirectory = Files.createTempDirectory("verification-openapi-tour");
        registry.add("verification.data-dir", dataDirectory::toString);
    }

    @LocalServerPort
    int port;

    private ValidatingProxy proxy;

    @BeforeAll
    void startProxy() throws Exception {
        proxy = ValidatingProxy.start(port);
    }

    @AfterAll
    void stopProxy() {
        proxy.close();
    }

    @Test
    void everyRequestAndAnswerOfTheReadmeTourMatchesTheOpenApiDocument() throws Exception {
        List<ApiContract.Exchange> exchanges = runThroughTheProxy(tourScript(TOUR));
        // The tour ends with a request the service refuses (a '#' in the userId): the document must refuse it too.
        ApiContract.Exchange refused = exchanges.get(exchanges.size() - 1);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.answerBody()).contains("\"field\":\"userId\"");
        assertThat(refused.requestProblems()).as("what the validator says about %s", refused)
                .anyMatch(problem -> problem.contains("userId") || problem.contains("pattern"));
        assertThat(exchanges).extracting(ApiContract.Exchange::status).contains(200, 201, 202, 400);
    }

    @Test
    void everyRequestAndAnswerOfTheReadmeAuthenticatorTourMatchesTheOpenApiDocument() throws Exception {
        List<ApiContract.Exchange> exchanges = runThroughTheProxy(tourScript(TOTP_TOUR));

        assertThat(exchanges).extracting(ApiContract.Exchange::status).containsExactly(201, 200, 200, 200, 200);
    }

    /**
     * Runs a tour as pasted into bash, through the proxy; every answer must match the document, and every request
     * the service took too. Answers the tour's exchanges, one per curl call.
     */
    private List<ApiContract.Exchange> runThroughTheProxy(String tour) throws Exception {
        int before = proxy.contract().exchanges().size();
        // The tour reads the key from ./data/api-key, as after ./run: give it the test's key there.
        Path workDirectory = Files.createTempDirectory("verification-openapi-tour-run");
        Files.createDirectories(workDirectory.resolve("data"));
        Files.writeString(workDirectory.resolve("data/api-key"), API_KEY);
        Process bash = new ProcessBuilder("bash", "-c", tour.replace(TOUR_API_LINE,
                "API=http://127.0.0.1:" + proxy.port()))
                .directory(workDirectory.toFile()).redirectErrorStream(true).start();
        String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(60, TimeUnit.SECONDS)).as("the tour ended").isTrue();
        assertThat(bash.exitValue()).as("the tour's exit status; its output:%n%s", output).isZero();

        List<ApiContract.Exchange> all = proxy.contract().exchanges();
        List<ApiContract.Exchange> exchanges = List.copyOf(all.subList(before, all.size()));
        int curls = tour.split("curl ", -1).length - 1;
        assertThat(exchanges).as("requests through the proxy (the tour has %d curl calls)", curls).hasSize(curls);
        for (ApiContract.Exchange exchange : exchanges) {
            assertThat(exchange.answerProblems()).as("the answer to %s: %s", exchange, exchange.answerBody()).isEmpty();
            if (exchange.status() < 400) {
                assertThat(exchange.requestProblems()).as("the request %s, which the service took", exchange).isEmpty();
            }
        }
        return exchanges;
    }

    @Test
    void theValidatorCatchesAnswersThatBreakTheDocument() {
        ApiContract contract = proxy.contract();
        Map<String, String> json = Map.of("Content-Type", "application/json");
        String sent = "{\"codeType\":\"EMAIL_VERIFICATION\",\"deliveryMethod\":\"EMAIL\",\"format\":\"NUMERIC\","
                + "\"maskedTarget\":\"j***@example.com\",\"expiresAt\":\"2026-11-30T10:15:00.000Z\",\"locale\":\"en\"}";
        assertThat(contract.checkAnswer("POST", "/v1/codes", 202, json, sent)).as("a correct answer").isEmpty();

        assertThat(contract.checkAnswer("POST", "/v1/codes", 202, json, sent.replace("EMAIL_VERIFICATION", "EMAIL_CHECK")))
                .as("an unknown enum value").isNotEmpty();
        assertThat(contract.checkAnswer("POST", "/v1/codes", 202, json,
                sent.replace(",\"expiresAt\":\"2026-11-30T10:15:00.000Z\"", "")))
                .as("a required field missing").anyMatch(problem -> problem.contains("expiresAt"));
        assertThat(contract.checkAnswer("POST", "/v1/codes", 202, json, sent.replace("2026-11-30T10:15:00.000Z", "soon")))
                .as("a date-time that is none").isNotEmpty();
        assertThat(contract.checkAnswer("POST", "/v1/codes", 202, json, sent.replace("}", ",\"code\":\"123456\"}")))
                .as("a member the document does not have (a code in the answer)").isNotEmpty();
        assertThat(contract.checkAnswer("POST", "/v1/codes", 418, json, sent)).as("a status not documented").isNotEmpty();

        Map<String, String> problemJson = Map.of("Content-Type", "application/problem+json");
        String problem = "{\"type\":\"https://verification-service.dev/problems/rate-limited\",\"title\":\"Too Many "
                + "Requests\",\"status\":429,\"detail\":\"Too many requests.\",\"code\":\"RATE_LIMITED\"}";
        assertThat(contract.checkAnswer("POST", "/v1/codes", 429, Map.of("Content-Type", "application/problem+json",
                "Retry-After", "30"), problem)).as("a correct problem").isEmpty();
        assertThat(contract.checkAnswer("POST", "/v1/codes", 429, problemJson, problem))
                .as("a 429 without Retry-After").anyMatch(text -> text.contains("Retry-After"));
        assertThat(contract.checkAnswer("POST", "/v1/codes", 429, Map.of("Content-Type", "application/problem+json",
                "Retry-After", "30"), problem.replace(",\"code\":\"RATE_LIMITED\"", "")))
                .as("a problem without its code").anyMatch(text -> text.contains("code"));
    }

    private static String tourScript(Pattern block) throws IOException {
        Path readme = ProjectFiles.readme();
        Matcher tour = block.matcher(Files.readString(readme));
        assertThat(tour.find()).as("an sh block matching %s in %s", block, readme).isTrue();
        assertThat(tour.group(1)).as("the tour's API line").contains(TOUR_API_LINE);
        return tour.group(1);
    }
}

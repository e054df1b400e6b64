package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.spring.logging.RefusalLog;
import dev.verificationservice.testsupport.time.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Refused requests (issue 15, items 1): every malformed or unsupported Content-Type the red team and we could
 * think of, sent to every public path and to every API operation, with and without a key, is never a 5xx, is a
 * problem document naming the header, and logs no stack trace and at most one short line; and a flood of refused
 * requests from several connections writes one summary line a minute that counts them all. Sent over a plain
 * socket, so that duplicated headers and bodies without a type go out exactly as written.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.admin-api-keys=" + AbstractApiTest.ADMIN_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY})
@Import(TestClockConfiguration.class)
@ExtendWith(OutputCaptureExtension.class)
class RefusedRequestsTest {

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        Path directory = Files.createTempDirectory("verification-content-type-test");
        registry.add("verification.data-dir", directory::toString);
    }

    /** What is sent: the Content-Type header lines (none, one or several) and the body. */
    record Shape(String name, List<String> contentTypes, String body) {
    }

    /** Where: method and path, and whether the request carries the application or admin key. */
    record Target(String method, String path, String key) {
    }

    private static final String JSON_BODY = "{\"userId\":\"u-1\"}";

    /** Refused on every path, whatever the method: 400 when the header is malformed, 415 when it is not taken. */
    static final List<Shape> REFUSED_EVERYWHERE = List.of(
            new Shape("multipart without boundary", List.of("multipart/form-data"), JSON_BODY),
            new Shape("multipart without boundary, no body", List.of("multipart/form-data"), null),
            new Shape("multipart with an empty boundary", List.of("multipart/form-data; boundary="), "--\r\n"),
            new Shape("multipart with a quoted boundary", List.of("multipart/form-data; boundary=\"a b\""),
                    "--a b\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nx\r\n--a b--\r\n"),
            new Shape("multipart with a huge boundary", List.of("multipart/form-data; boundary=" + "b".repeat(4000)),
                    "--" + "b".repeat(4000) + "--\r\n"),
            new Shape("multipart/mixed", List.of("multipart/mixed; boundary=x"), "--x--\r\n"),
            new Shape("an unknown charset", List.of("application/json; charset=nope"), JSON_BODY),
            new Shape("text with an unknown charset", List.of("text/plain;charset=nope"), "hello"),
            new Shape("an illegal charset name", List.of("application/json; charset=\"@@\""), JSON_BODY),
            new Shape("an empty charset", List.of("application/json; charset="), JSON_BODY),
            new Shape("form with an unknown charset", List.of("application/x-www-form-urlencoded; charset=nope"), "a=b"),
            new Shape("only semicolons", List.of(";;;"), JSON_BODY),
            new Shape("no subtype", List.of("application"), JSON_BODY),
            new Shape("an empty type", List.of(""), JSON_BODY),
            new Shape("garbage", List.of("\"/\""), JSON_BODY),
            new Shape("duplicated Content-Type", List.of("application/json", "application/json"), JSON_BODY),
            new Shape("two different Content-Types", List.of("application/json", "text/plain"), JSON_BODY),
            new Shape("a wildcard type", List.of("*/*"), JSON_BODY),
            new Shape("a wildcard subtype", List.of("application/*"), JSON_BODY));

    /** Well-formed but not JSON: the body is ignored where none is read, and refused where one is. */
    static final List<Shape> TAKEN_OR_REFUSED_BY_THE_ENDPOINT = List.of(
            new Shape("text/plain", List.of("text/plain"), "hello"),
            new Shape("a parameter without a value", List.of("application/json; charset"), JSON_BODY),
            new Shape("a form with broken percent-encoding", List.of("application/x-www-form-urlencoded"),
                    "_csrf=%zz&key=%&userId=%E0%A4"),
            new Shape("a form with a parameter without a name", List.of("application/x-www-form-urlencoded"), "=x&=y"),
            new Shape("a body without a type", List.of(), JSON_BODY),
            new Shape("application/json with a charset", List.of("application/json; charset=utf-8"), "{broken"));

    static List<Target> targets() {
        String key = AbstractApiTest.API_KEY;
        String admin = AbstractApiTest.ADMIN_KEY;
        List<Target> targets = new ArrayList<>();
        for (String path : List.of("/actuator/health", "/actuator/health/liveness", "/actuator/health/readiness",
                "/actuator/prometheus", "/v3/api-docs", "/swagger-ui.html", "/swagger-ui/index.html", "/console/sign-in",
                "/console/users", "/error", "/no-such-path")) {
            targets.add(new Target("GET", path, null));
            targets.add(new Target("POST", path, null));
        }
        for (String apiKey : new String[] {key, null}) {
            for (String path : List.of("/v1/codes", "/v1/codes/verify", "/v1/codes/check", "/v1/devices",
                    "/v1/devices/verify")) {
                targets.add(new Target("POST", path, apiKey));
            }
            for (String path : List.of("/v1/users/u-1/devices", "/v1/users/u-1/audit", "/v1/users/u-1/rate-limits",
                    "/dev/outbox")) {
                targets.add(new Target("GET", path, apiKey));
            }
            targets.add(new Target("DELETE", "/v1/users/u-1/devices", apiKey));
            targets.add(new Target("DELETE", "/v1/users/u-1/devices/d-1", apiKey));
        }
        // Refused by the container before any filter: they reach the filters only on the way to the error page.
        targets.add(new Target("TRACE", "/v1/users/u-1/totp", key));
        targets.add(new Target("TRACE", "/v1/codes", null));
        targets.add(new Target("GET", "/v1/admin/users/u-1", admin));
        targets.add(new Target("DELETE", "/v1/admin/users/u-1/codes", admin));
        targets.add(new Target("DELETE", "/v1/admin/users/u-1/rate-limits/SEND_EMAIL_VERIFICATION", admin));
        return targets;
    }

    @Test
    void noContentTypeIsEverA5xxOrAStackTraceAndEachRequestLogsAtMostOneLine(CapturedOutput output) {
        SoftAssertions softly = new SoftAssertions();
        List<Shape> shapes = new ArrayList<>(REFUSED_EVERYWHERE);
        shapes.addAll(TAKEN_OR_REFUSED_BY_THE_ENDPOINT);
        for (Target target : targets()) {
            for (Shape shape : shapes) {
                int logBefore = output.getAll().length();
                RawHttp.Answer answer = RawHttp.send(port, target.method(), target.path(), target.key(),
                        shape.contentTypes(), shape.body());
                String logged = output.getAll().substring(logBefore);
                String what = target.method() + " " + target.path() + (target.key() == null ? "" : " (with a key)")
                        + " with " + shape.name();

                softly.assertThat(answer.status()).as(what + ": " + answer.head()).isLessThan(500);
                if (answer.status() >= 400) {
                    softly.assertThat(answer.body()).as(what + ": the answer says why").isNotBlank();
                }
                softly.assertThat(logged.lines().count()).as(what + " logged: " + logged).isLessThanOrEqualTo(1);
                softly.assertThat(logged).as(what + " logged a stack trace").doesNotContain("\tat ", "Exception:");
                if (REFUSED_EVERYWHERE.contains(shape)) {
                    softly.assertThat(answer.status()).as(what).isIn(400, 415);
                    softly.assertThat(answer.contentType()).as(what).startsWith("application/problem+json");
                    softly.assertThat(answer.body()).as(what).contains("\"field\":\"Content-Type\"");
                } else if (answer.status() >= 400 && !target.path().startsWith("/console")) {
                    softly.assertThat(answer.contentType()).as(what + ": " + answer.head())
                            .startsWith("application/problem+json");
                }
            }
        }
        softly.assertAll();
    }

    @Test
    void aFloodOfRefusedRequestsFromFourConnectionsLogsOneSummaryLineAMinuteThatCountsThemAll(CapturedOutput output)
            throws Exception {
        clock.advance(RefusalLog.INTERVAL);
        RawHttp.send(port, "GET", "/v1/users/u-1/devices", null, List.of(), null);
        int floodStart = output.getAll().length();
        List<Target> kinds = List.of(
                new Target("GET", "/actuator/health/liveness", null),
                new Target("GET", "/v1/users/u-1/devices", null),
                new Target("POST", "/v1/codes", AbstractApiTest.API_KEY),
                new Target("POST", "/console/sign-in", null),
                new Target("GET", "/no-such-path", null));
        ExecutorService connections = Executors.newFixedThreadPool(4);
        List<Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            Target target = kinds.get(i % kinds.size());
            List<String> type = switch (target.path()) {
                case "/actuator/health/liveness" -> List.of("multipart/form-data");
                case "/v1/codes" -> List.of(";;;");
                case "/console/sign-in" -> List.of("application/x-www-form-urlencoded");
                default -> List.of();
            };
            String body = target.method().equals("POST") ? "key=guess" : null;
            statuses.add(connections.submit(() -> RawHttp.send(port, target.method(), target.path(), target.key(),
                    type, body).status()));
        }
        connections.shutdown();
        List<Integer> answered = new ArrayList<>();
        for (Future<Integer> status : statuses) {
            answered.add(status.get());
        }
        String flood = output.getAll().substring(floodStart);

        assertThat(answered).containsOnly(415, 401, 400, 403);
        assertThat(flood).as("600 refused requests within the minute log nothing").isEmpty();

        clock.advance(RefusalLog.INTERVAL);
        RawHttp.send(port, "GET", "/v1/users/u-1/devices", null, List.of(), null);
        String summary = output.getAll().substring(floodStart + flood.length());
        assertThat(summary.lines()).hasSize(1);
        assertThat(summary).contains("WARN", "Refused requests since 2026-11-30T10:", "400 /v1 x120", "401 /other x120",
                "401 /v1 x121", "403 /console x120", "415 /actuator x120").doesNotContain("guess", "\tat ");
    }

    @Test
    void whatTheContainerRefusesBeforeAnyFilterLogsNothingPerRequest(CapturedOutput output) {
        List<List<String>> refused = List.of(
                List.of("GET", "/v1/users/a%2Fb/devices"),
                List.of("GET", "/v1/users/a%00b/devices"),
                List.of("TRACE", "/v1/codes"),
                List.of("GET", "/actuator/health/liveness", "X-Big: " + "x".repeat(20_000)));
        int before = output.getAll().length();
        for (int round = 0; round < 50; round++) {
            for (List<String> request : refused) {
                RawHttp.Answer answer = RawHttp.send(port, request.get(0), request.get(1),
                        request.subList(2, request.size()), null);
                assertThat(answer.status()).as(request.get(0) + " " + request.get(1)).isBetween(400, 499);
                assertThat(answer.contentType()).startsWith("application/problem+json");
            }
        }
        // Not even Tomcat's note (with a stack trace) of the first request whose head it cannot parse.
        assertThat(output.getAll().substring(before)).isEmpty();
    }

    @Test
    void theConsoleFormsStillWorkWithMultipartOffAndABrokenFormIsA400Page() {
        RawHttp.Answer page = RawHttp.send(port, "GET", "/console/sign-in", List.of(), null);
        String signInToken = page.cookie("vs_console_signin");
        assertThat(page.body()).contains("name=\"_csrf\" value=\"" + signInToken + "\"");
        List<String> signInHeaders = List.of("Cookie: vs_console_signin=" + signInToken,
                "Content-Type: application/x-www-form-urlencoded");

        RawHttp.Answer broken = RawHttp.send(port, "POST", "/console/sign-in", signInHeaders,
                "_csrf=" + signInToken + "&key=%zz");
        assertThat(broken.status()).isEqualTo(400);
        assertThat(broken.body()).contains("The form could not be read");

        RawHttp.Answer signedIn = RawHttp.send(port, "POST", "/console/sign-in", signInHeaders,
                "_csrf=" + signInToken + "&key=" + AbstractApiTest.ADMIN_KEY);
        assertThat(signedIn.status()).as(signedIn.head()).isEqualTo(302);
        assertThat(signedIn.head()).contains("Location: /console/users");
        String session = signedIn.cookie("vs_console");

        RawHttp.Answer confirm = RawHttp.send(port, "GET", "/console/users/u-forms/codes/invalidate",
                List.of("Cookie: vs_console=" + session), null);
        java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"")
                .matcher(confirm.body());
        assertThat(csrf.find()).as(confirm.body()).isTrue();
        RawHttp.Answer invalidated = RawHttp.send(port, "POST", "/console/users/u-forms/codes/invalidate",
                List.of("Cookie: vs_console=" + session, "Content-Type: application/x-www-form-urlencoded"),
                "_csrf=" + java.net.URLEncoder.encode(csrf.group(1), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(invalidated.status()).as(invalidated.head()).isEqualTo(302);
        assertThat(invalidated.head()).contains("Location: /console/users/u-forms");
    }
}

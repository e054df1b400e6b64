package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.testsupport.time.MutableClock;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A country's SMS breaker over HTTP, on the embedded store, with thresholds an operator set low: SMS spread over a
 * country's ranges (none near its own threshold) and never verified pause the whole country once an instance reads
 * its figures again (429 SMS_RANGE_BLOCKED with scope country); the operator API shows and lifts it, and the
 * per-country metrics count what went, what was refused and what was verified.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.admin-api-keys=" + ApiTestSupport.ADMIN_KEY,
        "verification.sms-signals.country-min-sends=4",
        "verification.sms-signals.country-min-conversion=0.5",
        "verification.sms-signals.country-refresh=PT10S"})
@Import(TestClockConfiguration.class)
class SmsCountryBreakerApiTest {

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-sms-country")::toString);
    }

    private static Answer sms(ApiClient api, String user, String number) {
        return api.post("/v1/codes", Map.of("userId", user, "codeType", "PHONE_VERIFICATION", "deliveryMethod", "SMS",
                "deliveryTarget", number));
    }

    /** A French mobile number in a range of its own for each {@code n} below 10. */
    private static String french(int n) {
        return "+3361" + n + "345678";
    }

    @Test
    void aCountryOfUnverifiedCodesIsRefusedShownCountedAndLifted() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        for (int n = 0; n < 4; n++) {
            assertThat(sms(api, "fr-" + n, french(n)).status()).isEqualTo(202);
        }
        clock.advance(Duration.ofSeconds(10));

        Answer refused = sms(api, "fr-9", french(9));
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.text("code")).isEqualTo("SMS_RANGE_BLOCKED");
        assertThat(refused.text("scope")).isEqualTo("country");
        assertThat(refused.text("country")).isEqualTo("FR");
        assertThat(refused.header("Retry-After")).matches("[1-9][0-9]*");
        assertThat(sms(api, "gb-1", "+447911123456").status()).as("another country").isEqualTo(202);

        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();
        assertThat(metrics).contains("verification_sms_country_sent_total{country=\"FR\"} 4.0")
                .contains("verification_sms_country_refused_total{country=\"FR\"} 1.0")
                .contains("verification_sms_country_verified_total{country=\"FR\"} 0.0")
                .contains("verification_sms_country_sent_total{country=\"GB\"} 1.0");

        ApiClient operator = api.withKey(ApiTestSupport.ADMIN_KEY);
        Answer open = operator.get("/v1/admin/sms/countries/FR");
        assertThat(open.status()).isEqualTo(200);
        assertThat(open.raw().body()).contains("\"sent\":4").contains("\"verified\":0").contains("\"openUntil\"")
                .contains("SMS_RANGE_BLOCKED").contains("\"scope\":\"country\"");
        Answer listed = operator.get("/v1/admin/sms/countries");
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.json().get("openBreakers")).singleElement().satisfies(row -> {
            assertThat(row.get("country").asString()).isEqualTo("FR");
            assertThat(row.get("sent").asLong()).isEqualTo(4);
            assertThat(row.get("verified").asLong()).isZero();
            assertThat(row.get("conversion").asDouble()).isZero();
            assertThat(Instant.parse(row.get("openedAt").asString())).isEqualTo(clock.instant());
            assertThat(row.get("openUntil").asString()).isEqualTo(open.text("openUntil"));
        });
        assertThat(api.get("/v1/admin/sms/countries").status()).as("an application key").isEqualTo(403);

        assertThat(operator.delete("/v1/admin/sms/countries/FR/breaker").raw().body()).contains("\"wasOpen\":true");
        assertThat(operator.get("/v1/admin/sms/countries/FR").raw().body()).doesNotContain("openUntil")
                .contains("SMS_RANGE_RELEASED");
        assertThat(operator.get("/v1/admin/sms/countries").json().get("openBreakers")).as("lifted").isEmpty();
        assertThat(sms(api, "fr-9", french(9)).status()).as("lifted").isEqualTo(202);
        assertThat(operator.get("/v1/admin/sms/countries/fr").text("field")).isEqualTo("country");

        String document = api.withKey(null).get("/v3/api-docs").raw().body();
        assertThat(document).contains("\"/v1/admin/sms/countries\":{\"get\"")
                .contains("\"/v1/admin/sms/countries/{country}/breaker\":{\"delete\"")
                .containsPattern("\"OpenCountryRow\":\\{\"required\":\\[[^\\]]*\"openedAt\"");
    }

    @Test
    void theConsoleListsACountrysOpenBreakerShowsTheCountryAndLiftsIt() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        for (int n = 0; n < 4; n++) {
            assertThat(sms(api, "de-" + n, "+491511234567" + n).status()).isEqualTo(202);
        }
        clock.advance(Duration.ofSeconds(10));
        assertThat(sms(api, "de-9", "+4915112345679").text("country")).isEqualTo("DE");
        List<String> session = RawHttp.consoleSession(port, ApiTestSupport.ADMIN_KEY);

        RawHttp.Answer page = RawHttp.send(port, "GET", "/console/sms", session, null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).containsPattern("(?s)id=\"open-countries\".*data-country=\"DE\".*"
                + "<td data-label=\"Sent\">4</td>.*<td data-label=\"Conversion\">0 %</td>.*"
                + "<td data-label=\"Opened at\">[^<]+ UTC</td>.*<td data-label=\"Open until\">[^<]+ UTC</td>.*"
                + "action=\"/console/sms/lift-country\".*name=\"country\" value=\"DE\".*"
                + "aria-label=\"Lift the breaker of DE\".*id=\"sms-worst\"");

        RawHttp.Answer country = RawHttp.send(port, "GET", "/console/sms?country=DE", session, null);
        assertThat(country.body()).containsPattern("(?s)id=\"sms-country-figures\".*id=\"sms-country-sent\">4<.*"
                + "id=\"sms-country-breaker\">Open until .*id=\"lift-country-breaker\".*id=\"sms-country-events\".*"
                + "SMS_RANGE_BLOCKED.*scope=country");
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(country.body());
        assertThat(csrf.find()).isTrue();
        List<String> posting = List.of(session.get(0), "Content-Type: application/x-www-form-urlencoded");
        assertThat(RawHttp.send(port, "POST", "/console/sms/lift-country", posting, "country=DE").status())
                .as("no CSRF token: refused").isEqualTo(403);
        assertThat(sms(api, "de-9", "+4915112345679").status()).as("still open").isEqualTo(429);

        RawHttp.Answer lifted = RawHttp.send(port, "POST", "/console/sms/lift-country", posting,
                "_csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8) + "&country=DE");
        assertThat(lifted.status()).as(lifted.head()).isEqualTo(302);
        assertThat(lifted.head()).contains("Location: /console/sms?country=DE#result");
        RawHttp.Answer after = RawHttp.send(port, "GET", "/console/sms?country=DE", session, null);
        assertThat(after.body()).contains("Lifted the SMS breaker of DE").contains("Audited as SMS_RANGE_RELEASED")
                .contains("id=\"sms-country-breaker\">Closed<").doesNotContain("id=\"lift-country-breaker\"")
                .doesNotContain("data-country=\"DE\"")
                .containsPattern("SMS_RANGE_RELEASED</td>\\s*<td data-label=\"Details\">[^<]*operatorKeyId=adm-");
        assertThat(sms(api, "de-9", "+4915112345679").status()).as("lifted").isEqualTo(202);
        assertThat(RawHttp.send(port, "GET", "/console/sms?country=de", session, null).status())
                .as("no region").isEqualTo(400);
    }
}

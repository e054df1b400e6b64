package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.server.config.KeyMaterial;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.testsupport.proxies.Interposed;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The SMS range breaker over HTTP, on the embedded store, with thresholds an operator set low: a range whose codes
 * go unverified answers 429 SMS_RANGE_BLOCKED with Retry-After; {@code humanVerified} passes it from the key the
 * operator permitted and is a 403 naming the field from another; when the store cannot give the range's signals the
 * SMS goes, counted in a metric and noted on its CODE_SENT.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY + "," + SmsBreakerApiTest.OTHER_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.admin-api-keys=" + ApiTestSupport.ADMIN_KEY,
        "verification.sms-signals.min-sends=3",
        "verification.sms-signals.min-conversion=0.5"})
@Import({TestClockConfiguration.class, SmsBreakerApiTest.SignalFaults.class})
class SmsBreakerApiTest {

    /** An application key the operator has not permitted to vouch for a human. */
    static final String OTHER_KEY = "k7Qm2xVb9RtL4pZc8WnE3sYh6JdG1fAu";

    /** While set, the store cannot read the counters of a number range. */
    static final AtomicBoolean RANGES_UNREADABLE = new AtomicBoolean();

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-sms-breaker")::toString);
        registry.add("verification.human-verified-keys", () -> KeyMaterial.applicationKeyId(AbstractApiTest.API_KEY));
    }

    @AfterEach
    void readable() {
        RANGES_UNREADABLE.set(false);
    }

    private static Answer sms(ApiClient api, String user, String number, boolean humanVerified) {
        Map<String, Object> body = new LinkedHashMap<>(Map.of("userId", user, "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", number));
        if (humanVerified) {
            body.put("humanVerified", true);
        }
        return api.post("/v1/codes", body);
    }

    @Test
    void aRangeOfUnverifiedCodesIsRefusedAndOnlyAPermittedKeyVouchesPastIt() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        for (int n = 0; n < 3; n++) {
            assertThat(sms(api, "pump-" + n, "+44770012340" + n, false).status()).isEqualTo(202);
        }

        Answer refused = sms(api, "pump-9", "+447700123409", false);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.text("code")).isEqualTo("SMS_RANGE_BLOCKED");
        assertThat(refused.text("smsRange")).isEqualTo("+447700");
        assertThat(refused.header("Retry-After")).matches("[1-9][0-9]*");
        assertThat(sms(api, "other-range", "+447911123456", false).status()).isEqualTo(202);

        Answer notPermitted = sms(new ApiClient(port, OTHER_KEY), "pump-9", "+447700123409", true);
        assertThat(notPermitted.status()).isEqualTo(403);
        assertThat(notPermitted.text("field")).isEqualTo("humanVerified");

        assertThat(sms(api, "pump-9", "+447700123409", true).status()).isEqualTo(202);
        assertThat(api.get("/v1/users/pump-9/audit").raw().body()).contains("\"humanVerified\":\"true\"")
                .contains("SMS_BREAKER");
        assertThat(api.withKey(null).get("/actuator/prometheus").raw().body())
                .contains("verification_ratelimited_total{action=\"SMS_BREAKER\"");

        ApiClient operator = api.withKey(ApiTestSupport.ADMIN_KEY);
        Answer open = operator.get("/v1/admin/sms/ranges/+447700");
        assertThat(open.status()).isEqualTo(200);
        assertThat(open.raw().body()).contains("\"sent\":4").contains("\"verified\":0").contains("\"openUntil\"")
                .contains("SMS_RANGE_BLOCKED");
        assertThat(operator.delete("/v1/admin/sms/ranges/+447700/breaker").raw().body())
                .contains("\"wasOpen\":true");
        assertThat(operator.get("/v1/admin/sms/ranges/+447700").raw().body()).doesNotContain("openUntil")
                .contains("SMS_RANGE_RELEASED");
        assertThat(sms(api, "pump-10", "+447700123410", false).status()).as("lifted").isEqualTo(202);
        assertThat(operator.get("/v1/admin/sms/ranges/447700").text("field")).isEqualTo("prefix");
    }

    @Test
    void operatorsListTheOpenBreakersAndWorstRangesAndAllowARange() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        for (int n = 0; n < 3; n++) {
            assertThat(sms(api, "listed-" + n, "+44740012340" + n, false).status()).isEqualTo(202);
        }
        assertThat(sms(api, "listed-9", "+447400123409", false).status()).isEqualTo(429);

        ApiClient operator = api.withKey(ApiTestSupport.ADMIN_KEY);
        Answer listed = operator.get("/v1/admin/sms/ranges");
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.raw().body()).containsPattern("\"openBreakers\":\\[[^\\]]*\\{\"range\":\"\\+447400\","
                        + "\"country\":\"GB\",\"sent\":3,\"verified\":0,\"conversion\":0.0,\"openUntil\":\"[^\"]+\","
                        + "\"allowed\":false}")
                .containsPattern("\"worst\":\\[[^\\]]*\"range\":\"\\+447400\"");

        String allow = "/v1/admin/sms/ranges/+447400/allowed";
        assertThat(operator.send("PUT", allow, null, null).raw().body()).contains("\"wasAllowed\":false");
        assertThat(operator.send("PUT", allow, null, null).raw().body()).as("a repeat")
                .contains("\"wasAllowed\":true");
        assertThat(sms(api, "listed-9", "+447400123409", false).status()).as("allowed, breaker open").isEqualTo(202);
        assertThat(operator.get("/v1/admin/sms/ranges").raw().body()).containsPattern("\"allowed\":\\[[^\\]]*"
                + "\\{\"range\":\"\\+447400\",\"country\":\"GB\",\"allowedAt\":\"[^\"]+\",\"operatorKeyId\":\"[^\"]+\"}");
        assertThat(operator.get("/v1/admin/sms/ranges/+447400").raw().body()).contains("\"allowed\":true")
                .contains("SMS_RANGE_ALLOWED");

        assertThat(operator.delete(allow).raw().body()).contains("\"wasAllowed\":true");
        assertThat(operator.delete(allow).raw().body()).as("a repeat").contains("\"wasAllowed\":false");
        assertThat(sms(api, "listed-10", "+447400123410", false).status()).as("judged again").isEqualTo(429);
        assertThat(operator.send("PUT", "/v1/admin/sms/ranges/447400/allowed", null, null).text("field"))
                .isEqualTo("prefix");

        String document = api.withKey(null).get("/v3/api-docs").raw().body();
        assertThat(document).contains("\"/v1/admin/sms/ranges\":{\"get\"")
                .containsPattern("\"/v1/admin/sms/ranges/\\{prefix}/allowed\":\\{\"(put|delete)\"")
                .containsPattern("\"SmsRangeView\":\\{\"required\":\\[[^\\]]*\"allowed\"");
    }

    @Test
    void anSmsWhoseRangeCannotBeReadGoesCountedAndNoted() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        RANGES_UNREADABLE.set(true);

        assertThat(sms(api, "unread", "+447911123400", false).status()).isEqualTo(202);
        assertThat(api.get("/v1/users/unread/audit").raw().body()).contains("\"signalUnavailable\":\"true\"");
        assertThat(api.withKey(null).get("/actuator/prometheus").raw().body())
                .containsPattern("verification_sms_signal_unavailable_total [1-9]");
    }

    @Test
    void theConsoleShowsARangesOpenBreakerAndLiftsIt() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        for (int n = 0; n < 4; n++) {
            sms(api, "console-" + n, "+44791112340" + n, false);
        }
        assertThat(sms(api, "console-9", "+447911123409", false).text("code")).isEqualTo("SMS_RANGE_BLOCKED");

        List<String> session = RawHttp.consoleSession(port, ApiTestSupport.ADMIN_KEY);

        RawHttp.Answer page = RawHttp.send(port, "GET", "/console/sms?range=%2B447911", session, null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("+447911 (GB)").contains("Open until").contains("SMS_RANGE_BLOCKED")
                .contains("id=\"lift-breaker\"");
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(csrf.find()).isTrue();

        RawHttp.Answer lifted = RawHttp.send(port, "POST", "/console/sms/lift", List.of(session.get(0),
                        "Content-Type: application/x-www-form-urlencoded"),
                "_csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8) + "&range=%2B447911");
        assertThat(lifted.status()).as(lifted.head()).isEqualTo(302);
        RawHttp.Answer after = RawHttp.send(port, "GET", "/console/sms?range=%2B447911", session, null);
        assertThat(after.body()).contains("Lifted the SMS breaker of +447911").contains("Closed")
                .doesNotContain("id=\"lift-breaker\"");
        assertThat(sms(api, "console-9", "+447911123409", false).status()).isEqualTo(202);
    }

    @Test
    void theConsoleListsOpenBreakersWithALiftButtonAndAllowsARange() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);
        for (int n = 0; n < 4; n++) {
            sms(api, "console-list-" + n, "+44745012340" + n, false);
        }
        List<String> session = RawHttp.consoleSession(port, ApiTestSupport.ADMIN_KEY);

        RawHttp.Answer page = RawHttp.send(port, "GET", "/console/sms", session, null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).containsPattern("(?s)id=\"open-breakers\".*data-range=\"\\+447450\".*"
                + "aria-label=\"Lift the breaker of \\+447450\".*id=\"worst-ranges\".*data-range=\"\\+447450\"");
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(csrf.find()).isTrue();
        String form = "_csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8) + "&range=%2B447450";
        List<String> posting = List.of(session.get(0), "Content-Type: application/x-www-form-urlencoded");

        assertThat(RawHttp.send(port, "POST", "/console/sms/allow", posting, form).status()).isEqualTo(302);
        RawHttp.Answer allowed = RawHttp.send(port, "GET", "/console/sms?range=%2B447450", session, null);
        assertThat(allowed.body()).contains("Allowed +447450").contains("id=\"disallow-range\"")
                .containsPattern("(?s)id=\"allowed-ranges\".*data-range=\"\\+447450\"");
        assertThat(sms(api, "console-list-9", "+447450123409", false).status()).as("allowed").isEqualTo(202);

        assertThat(RawHttp.send(port, "POST", "/console/sms/disallow", posting, form).status()).isEqualTo(302);
        RawHttp.Answer removed = RawHttp.send(port, "GET", "/console/sms?range=%2B447450", session, null);
        assertThat(removed.body()).contains("Removed the allow of +447450").contains("id=\"allow-range\"");

        assertThat(RawHttp.send(port, "POST", "/console/sms/lift", posting, form).status()).isEqualTo(302);
        assertThat(RawHttp.send(port, "GET", "/console/sms", session, null).body())
                .doesNotContain("aria-label=\"Lift the breaker of +447450\"");
    }

    /** The service's store, whose counter reads of a number range fail while {@link #RANGES_UNREADABLE} is set. */
    private static VerificationStore withUnreadableRanges(VerificationStore store) {
        RateLimitRepository counters = store.counters();
        return Interposed.withPort(VerificationStore.class, store, "counters", Interposed.answering(
                RateLimitRepository.class, counters, "findCounters", args -> {
                    if (RANGES_UNREADABLE.get() && ((String) args[0]).startsWith("smsrange:")) {
                        throw new StoreException("the store is unreachable");
                    }
                    return counters.findCounters((String) args[0], (String) args[1], (Instant) args[2],
                            (Instant) args[3], (Instant) args[4]);
                }));
    }

    /** Wraps the service's store so that a test can make the number ranges' counters unreadable. */
    @TestConfiguration(proxyBeanMethods = false)
    static class SignalFaults {
        @Bean
        static BeanPostProcessor rangesMayFail() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof VerificationStore store ? withUnreadableRanges(store) : bean;
                }
            };
        }
    }
}

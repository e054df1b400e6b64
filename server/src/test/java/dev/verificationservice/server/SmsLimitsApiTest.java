package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The SMS budget, the country allowlist and the international networks, configured as an operator would: at the
 * budget SMS answers 429 SMS_BUDGET_EXHAUSTED while email still works; a number outside the allowed countries, or
 * of an international network not opted in, is a 400 naming {@code deliveryTarget}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + AbstractApiTest.API_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY,
        "verification.limits.sms-budget=2/PT1H",
        "verification.limits.sms-countries=GB,IE",
        "verification.limits.sms-non-geographic=881"})
@Import(TestClockConfiguration.class)
class SmsLimitsApiTest {

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-sms-limits")::toString);
    }

    private Answer sms(ApiClient api, String user, String number) {
        return api.post("/v1/codes", Map.of("userId", user, "codeType", "PHONE_VERIFICATION", "deliveryMethod", "SMS",
                "deliveryTarget", number));
    }

    @Test
    void theBudgetStopsSmsButNotEmailAndTheAllowListRefusesOtherCountries() {
        ApiClient api = new ApiClient(port, AbstractApiTest.API_KEY);

        Answer france = sms(api, "fr-user", "+33612345678");
        assertThat(france.status()).isEqualTo(400);
        assertThat(france.text("field")).isEqualTo("deliveryTarget");
        assertThat(france.text("detail")).contains("FR").contains("[GB, IE]");
        Answer inmarsat = sms(api, "sat-user", "+870301234567");
        assertThat(inmarsat.status()).isEqualTo(400);
        assertThat(inmarsat.text("field")).isEqualTo("deliveryTarget");
        assertThat(inmarsat.text("detail")).contains("+870").contains("VERIFICATION_LIMITS_SMS_NON_GEOGRAPHIC=870");

        assertThat(sms(api, "budget-1", "+447700123401").status()).isEqualTo(202);
        assertThat(sms(api, "budget-2", "+353851234567").status()).isEqualTo(202);
        Answer third = sms(api, "budget-3", "+447700123403");
        assertThat(third.status()).isEqualTo(429);
        assertThat(third.text("code")).isEqualTo("SMS_BUDGET_EXHAUSTED");
        assertThat(third.header("Retry-After")).isEqualTo("3600");
        // Iridium (+881) is opted in: the number is accepted, and only the spent budget stops it.
        Answer iridium = sms(api, "sat-user", "+881612345678");
        assertThat(iridium.status()).isEqualTo(429);
        assertThat(iridium.text("code")).isEqualTo("SMS_BUDGET_EXHAUSTED");

        assertThat(api.post("/v1/codes", Map.of("userId", "budget-3", "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "budget@example.com")).status()).isEqualTo(202);
        assertThat(api.withKey(null).get("/actuator/prometheus").raw().body())
                .contains("verification_ratelimited_total{action=\"SMS_BUDGET\"");
        assertThat(api.get("/v1/users/budget-3/audit").raw().body()).contains("RATE_LIMITED").contains("SMS_BUDGET");
    }
}

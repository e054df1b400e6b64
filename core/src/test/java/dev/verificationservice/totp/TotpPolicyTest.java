package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TotpPolicyTest {

    /**
     * The day's limit is gone: a policy written with one still builds, the same as without it, and a warning names
     * what bounds wrong codes over time now (slf4j-simple writes it to the standard error the test holds).
     */
    @Test
    @SuppressWarnings("removal")
    void aPolicyWrittenWithTheOldDailyLimitIsThePolicyWithoutItAndAWarningNamesTheReplacement() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream standardError = System.err;
        TotpPolicy old;
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            old = new TotpPolicy(TotpPolicy.DEFAULT_PENDING_TTL, RateLimitPolicy.DEFAULT_GUESSES,
                    RateLimitPolicy.DEFAULT_GUESSES, "Acme", new RateLimitPolicy(20, Duration.ofDays(1)));
        } finally {
            System.setErr(standardError);
        }

        assertThat(old).isEqualTo(new TotpPolicy(TotpPolicy.DEFAULT_PENDING_TTL, RateLimitPolicy.DEFAULT_GUESSES,
                RateLimitPolicy.DEFAULT_GUESSES, "Acme"));
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("WARN").contains("dailyVerifyLimit")
                .contains("is ignored").contains("VERIFY_TOTP_CONSECUTIVE");
    }
}

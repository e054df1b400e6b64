package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TotpPolicyTest {

    /** The day's limit is gone: a policy written with one still builds, the same as without it. */
    @Test
    @SuppressWarnings("removal")
    void aPolicyWrittenWithTheOldDailyLimitIsThePolicyWithoutIt() {
        TotpPolicy old = new TotpPolicy(TotpPolicy.DEFAULT_PENDING_TTL, RateLimitPolicy.DEFAULT_GUESSES,
                RateLimitPolicy.DEFAULT_GUESSES, "Acme", new RateLimitPolicy(20, Duration.ofDays(1)));

        assertThat(old).isEqualTo(new TotpPolicy(TotpPolicy.DEFAULT_PENDING_TTL, RateLimitPolicy.DEFAULT_GUESSES,
                RateLimitPolicy.DEFAULT_GUESSES, "Acme"));
    }
}

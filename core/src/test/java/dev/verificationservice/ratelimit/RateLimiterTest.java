package dev.verificationservice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    @Test
    void windowsAreAlignedToTheEpoch() {
        Duration fifteen = Duration.ofMinutes(15);
        assertThat(RateLimiter.windowStart(Instant.parse("2026-11-30T10:14:59.999Z"), fifteen))
                .isEqualTo(Instant.parse("2026-11-30T10:00:00Z"));
        assertThat(RateLimiter.windowStart(Instant.parse("2026-11-30T10:15:00Z"), fifteen))
                .isEqualTo(Instant.parse("2026-11-30T10:15:00Z"));
    }

    @Test
    void aDecisionAllowsUpToTheLimitAndRoundsRetryAfterUp() {
        Instant start = Instant.parse("2026-11-30T10:00:00Z");
        RateLimitDecision fifth = new RateLimitDecision("SEND_X", 5, 5, start, start.plusSeconds(900));
        RateLimitDecision sixth = new RateLimitDecision("SEND_X", 6, 5, start, start.plusSeconds(900));

        assertThat(fifth.allowed()).isTrue();
        assertThat(fifth.limitReached()).isTrue();
        assertThat(sixth.allowed()).isFalse();
        assertThat(sixth.retryAfterSeconds(start.plusMillis(899_001))).isEqualTo(1);
        assertThat(sixth.retryAfterSeconds(start.plusSeconds(1000))).isEqualTo(1);
        assertThat(sixth.retryAfterSeconds(start.plusSeconds(300))).isEqualTo(600);
    }

    @Test
    void aPolicyNeedsAPositiveLimitAndWholeSecondWindow() {
        assertThatThrownBy(() -> new RateLimitPolicy(0, Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateLimitPolicy(1, Duration.ofMillis(1500))).isInstanceOf(IllegalArgumentException.class);
    }
}

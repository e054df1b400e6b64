package dev.verificationservice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.VerificationSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

    @Test
    void noCounterItemHandsOutMoreThanTheCapSoALargerLimitNeedsShards() {
        int cap = RateLimitPolicy.MAX_PER_COUNTER;
        assertThat(new RateLimitPolicy(cap, Duration.ofDays(1)).limit()).isEqualTo(cap);
        assertThatThrownBy(() -> new RateLimitPolicy(cap + 1, Duration.ofDays(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more than " + cap);
        assertThat(RateLimitPolicy.fewestShards(cap + 1)).isEqualTo(2);
        assertThat(new RateLimitPolicy(cap + 1, Duration.ofDays(1), 2).shardLimit(0)).isEqualTo(cap / 2 + 1);
        assertThatThrownBy(() -> new RateLimitPolicy(3 * cap, Duration.ofDays(1), 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 shards");
        assertThatThrownBy(() -> new RateLimitPolicy(3, Duration.ofDays(1), 4))
                .as("a shard that could hold no place").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theVerifyLimitIsReadOverSeveralWindowsSoItIsNeverSplit() {
        RateLimitPolicy split = new RateLimitPolicy(10, Duration.ofMinutes(15), 2);
        assertThat(VerificationSettings.defaults().withSendLimit(split).sendLimit()).isEqualTo(split);
        assertThatThrownBy(() -> VerificationSettings.defaults().withVerifyLimit(split))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("verifyLimit");
    }

    @Test
    void aLimitIsSplitOverItsShardsWithoutRemainder() {
        RateLimitPolicy split = new RateLimitPolicy(7, Duration.ofHours(1), 3);
        assertThat(List.of(split.shardLimit(0), split.shardLimit(1), split.shardLimit(2))).containsExactly(3, 2, 2);
        assertThat(List.of(split.placesBefore(0), split.placesBefore(1), split.placesBefore(2))).containsExactly(0, 3, 5);
        assertThat(RateLimiter.shardSubject("global", 0)).isEqualTo("global");
        assertThat(RateLimiter.shardSubject("global", 2)).isEqualTo("global#2");
    }

    /** A counter read by the windows after its own lives until the last of them ends, and an hour more. */
    @Test
    void aCounterReadOverLaterWindowsLivesUntilTheLastOfThemEnds() {
        List<Instant> expiries = new ArrayList<>();
        RateLimitRepository recording = new RateLimitRepository() {
            @Override
            public long takePlace(Place place, long ceiling) {
                expiries.add(place.window().expiresAt());
                return 1;
            }

            @Override
            public void givePlaceBack(Place place) {
            }

            @Override
            public int deleteCounters(String userId, String action) {
                return 0;
            }

            @Override
            public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart,
                                                                    Instant now) {
                return Optional.empty();
            }

            @Override
            public List<RateLimitCounter> findCounters(String userId, String action, Instant from, Instant to,
                                                       Instant now) {
                return List.of();
            }

            @Override
            public Optional<Instant> claimCooldown(Cooldown cooldown) {
                return Optional.empty();
            }

            @Override
            public void releaseCooldown(Cooldown cooldown) {
            }
        };
        Instant now = Instant.parse("2026-11-30T10:05:00Z");
        RateLimiter limiter = new RateLimiter(recording, Clock.fixed(now, ZoneOffset.UTC));
        Duration thirtyDays = Duration.ofDays(30);
        Instant windowStart = RateLimiter.windowStart(now, thirtyDays);

        limiter.acquireOverWindows("u", "VERIFY_X", new RateLimitPolicy(100, thirtyDays), 1);
        limiter.acquireOverWindows("u", "VERIFY_Y", new RateLimitPolicy(5, Duration.ofMinutes(15)), 0);

        assertThat(expiries).containsExactly(windowStart.plus(thirtyDays.multipliedBy(2)).plus(RateLimiter.COUNTER_GRACE),
                Instant.parse("2026-11-30T10:15:00Z").plus(RateLimiter.COUNTER_GRACE));
    }
}

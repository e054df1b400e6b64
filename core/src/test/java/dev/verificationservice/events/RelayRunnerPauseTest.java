package dev.verificationservice.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** While the store keeps refusing polls, the relay waits longer each time, at most a minute. */
class RelayRunnerPauseTest {

    @Test
    void thePauseDoublesFromThePollIntervalUpToAMinute() {
        WebhookSettings settings = new WebhookSettings(false, 1, 1, Duration.ofSeconds(1), 10);
        try (RelayRunner runner = new RelayRunner(null, settings)) {
            assertThat(runner.pauseAfter(1)).isEqualTo(Duration.ofSeconds(1));
            assertThat(runner.pauseAfter(2)).isEqualTo(Duration.ofSeconds(2));
            assertThat(runner.pauseAfter(6)).isEqualTo(Duration.ofSeconds(32));
            assertThat(runner.pauseAfter(7)).isEqualTo(RelayRunner.MAX_PAUSE);
            assertThat(runner.pauseAfter(1_000)).isEqualTo(RelayRunner.MAX_PAUSE);
        }
    }

    @Test
    void aPollIntervalLongerThanAMinuteIsKept() {
        WebhookSettings settings = new WebhookSettings(false, 1, 1, Duration.ofMinutes(5), 10);
        try (RelayRunner runner = new RelayRunner(null, settings)) {
            assertThat(runner.pauseAfter(3)).isEqualTo(Duration.ofMinutes(5));
        }
    }
}

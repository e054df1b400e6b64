package dev.verificationservice.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.spring.StartupException;
import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A session lives as the settings say, on the service's clock, and only its cookie value finds it. */
class ConsoleSessionsTest {

    private static final ConsoleSettings SETTINGS = new ConsoleSettings(Duration.ofMinutes(15), Duration.ofHours(8));

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T09:00:00Z"));
    private final ConsoleSessions sessions = new ConsoleSessions(clock, SETTINGS);

    @Test
    void theCookieValueFindsItsSessionAndNothingElseDoes() {
        ConsoleSessions.Created created = sessions.create("adm-0123456789ab");

        assertThat(sessions.find(created.cookieValue())).get()
                .extracting(ConsoleSessions.Session::operatorKeyId).isEqualTo("adm-0123456789ab");
        assertThat(sessions.find(created.cookieValue() + "x")).isEmpty();
        assertThat(sessions.find(created.session().csrfToken())).as("the CSRF token is not the id").isEmpty();
        assertThat(created.toString()).doesNotContain(created.cookieValue());
    }

    @Test
    void aSessionUnusedForTheIdleTimeoutEnds() {
        ConsoleSessions.Created created = sessions.create("adm-0123456789ab");

        clock.advance(SETTINGS.idleTimeout().minusSeconds(1));
        assertThat(sessions.find(created.cookieValue())).as("used just before the timeout").isPresent();
        clock.advance(SETTINGS.idleTimeout().minusSeconds(1));
        assertThat(sessions.find(created.cookieValue())).as("each use starts the idle time again").isPresent();
        clock.advance(SETTINGS.idleTimeout());
        assertThat(sessions.find(created.cookieValue())).isEmpty();
    }

    @Test
    void aBusySessionEndsAtItsMaximumAge() {
        ConsoleSessions.Created created = sessions.create("adm-0123456789ab");

        for (Duration used = Duration.ZERO; used.compareTo(SETTINGS.maxSessionAge()) < 0;
             used = used.plus(Duration.ofMinutes(10))) {
            assertThat(sessions.find(created.cookieValue())).as("after %s", used).isPresent();
            clock.advance(Duration.ofMinutes(10));
        }
        assertThat(sessions.find(created.cookieValue())).isEmpty();
    }

    @Test
    void signingOutEndsTheSessionAtOnce() {
        ConsoleSessions.Created created = sessions.create("adm-0123456789ab");

        sessions.end(created.session());

        assertThat(sessions.find(created.cookieValue())).isEmpty();
    }

    @Test
    void anIdleTimeoutLongerThanTheSessionAgeOrNotPositiveIsRefused() {
        assertThatThrownBy(() -> new ConsoleSettings(Duration.ofHours(9), Duration.ofHours(8)))
                .isInstanceOf(StartupException.class).hasMessageContaining("VERIFICATION_CONSOLE_IDLE_TIMEOUT");
        assertThatThrownBy(() -> new ConsoleSettings(Duration.ZERO, Duration.ofHours(8)))
                .isInstanceOf(StartupException.class);
        assertThat(new ConsoleSettings(Duration.ofHours(8), Duration.ofHours(8)).idleTimeout())
                .isEqualTo(Duration.ofHours(8));
    }
}

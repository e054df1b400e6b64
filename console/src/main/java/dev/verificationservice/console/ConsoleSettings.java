package dev.verificationservice.console;

import dev.verificationservice.spring.StartupException;
import java.time.Duration;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The support console's sessions ({@code verification.console.*}): how long a signed-in session lives.
 *
 * @param idleTimeout    a session unused this long ends ({@code VERIFICATION_CONSOLE_IDLE_TIMEOUT})
 * @param maxSessionAge  a session ends this long after sign-in however busy
 *                       ({@code VERIFICATION_CONSOLE_MAX_SESSION_AGE})
 */
public record ConsoleSettings(@DefaultValue("PT15M") Duration idleTimeout,
                              @DefaultValue("PT8H") Duration maxSessionAge) {
    public ConsoleSettings {
        if (idleTimeout.isNegative() || idleTimeout.isZero() || maxSessionAge.compareTo(idleTimeout) < 0) {
            throw new StartupException("VERIFICATION_CONSOLE_IDLE_TIMEOUT must be positive and no longer "
                    + "than VERIFICATION_CONSOLE_MAX_SESSION_AGE.", "Set them to durations such as PT15M and PT8H "
                    + "(the defaults), the idle timeout no longer than the session age.");
        }
    }
}

package dev.verificationservice.console;

import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;

/**
 * The console's pages, gate and sessions, for an application to {@code @Import}; it needs the starter's
 * {@code Verification} and clock, and a {@link ConsoleHost} bean of the application's.
 */
@Configuration(proxyBeanMethods = false)
@ComponentScan(basePackageClasses = ConsoleConfiguration.class)
public class ConsoleConfiguration {

    @Bean
    public ConsoleSessions consoleSessions(Clock clock, ConsoleHost host) {
        return new ConsoleSessions(clock, host.settings());
    }
}

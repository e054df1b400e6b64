package dev.verificationservice.console;

import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;

/**
 * The console's pages, gate and sessions, for an application to {@code @Import}; it needs the starter's
 * {@code Verification} and a {@link ConsoleHost} bean of the application's.
 */
@Configuration(proxyBeanMethods = false)
@ComponentScan(basePackageClasses = ConsoleConfiguration.class)
public class ConsoleConfiguration {
}

package dev.verificationservice.spring.settings;

/**
 * Rules of a part outside the starter (the server's API keys, say) that the {@link SettingsCheck} runs with its own,
 * so that one refused start names every problem. Declare it as a {@code static} {@code @Bean}: the check finds it
 * before any other bean is built.
 */
@FunctionalInterface
public interface SettingsRules {

    /** Reports each problem to {@link Settings#problems()}; throws none. */
    void check(Settings settings);
}

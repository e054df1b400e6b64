package dev.verificationservice.spring.settings;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/** Registers the {@link SettingsCheck}: with the starter, every application checks its settings before it starts. */
@AutoConfiguration
public class SettingsCheckAutoConfiguration {

    /** Static: a post-processor of the bean factory is made before the configuration classes are. */
    @Bean
    public static SettingsCheck verificationSettingsCheck() {
        return new SettingsCheck();
    }
}

package dev.verificationservice.spring.security;

import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import dev.verificationservice.spring.store.StoreAutoConfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Optional;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** The starter's login beans in a context of their own, on the embedded store in a new directory. */
final class LoginContexts {

    /** What a login context is configured from: the login beans and what they stand on. */
    static final AutoConfigurations AUTO_CONFIGURATIONS = AutoConfigurations.of(StoreAutoConfiguration.class,
            DeliveryAutoConfiguration.class, VerificationAutoConfiguration.class, LoginAutoConfiguration.class);

    /** An application's mapping that knows nobody: the beans are made, and no one gets a link or a passkey. */
    static final LoginAccounts NOBODY = new LoginAccounts() {
        @Override
        public Optional<LoginAccount> findByUsername(String username) {
            return Optional.empty();
        }

        @Override
        public Optional<String> usernameOf(String userId) {
            return Optional.empty();
        }
    };

    private LoginContexts() {
    }

    /** A servlet application's context, as the login beans need. */
    static WebApplicationContextRunner web() {
        return new WebApplicationContextRunner().withConfiguration(AUTO_CONFIGURATIONS)
                .withPropertyValues(dataDirectory());
    }

    /** {@code verification.data-dir} set to a new directory. */
    static String dataDirectory() {
        try {
            return "verification.data-dir=" + Files.createTempDirectory("verification-login");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

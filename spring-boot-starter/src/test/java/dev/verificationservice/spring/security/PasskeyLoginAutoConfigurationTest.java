package dev.verificationservice.spring.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.spring.core.PasskeysEnabled;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.web.webauthn.authentication.PublicKeyCredentialRequestOptionsRepository;
import org.springframework.security.web.webauthn.management.MapUserCredentialRepository;
import org.springframework.security.web.webauthn.management.PublicKeyCredentialUserEntityRepository;
import org.springframework.security.web.webauthn.management.UserCredentialRepository;
import org.springframework.security.web.webauthn.management.WebAuthnRelyingPartyOperations;
import org.springframework.security.web.webauthn.registration.PublicKeyCredentialCreationOptionsRepository;

/** When the starter's Spring Security passkey beans are made, and that each backs off for the application's own. */
class PasskeyLoginAutoConfigurationTest {

    private final WebApplicationContextRunner web = LoginContexts.web()
            .withConfiguration(AutoConfigurations.of(PasskeyLoginAutoConfiguration.class));

    @Test
    void withLoginAccountsEveryBeanIsMadeOnTheStore() {
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY).run(context -> {
            assertThat(context.getBean(WebAuthnRelyingPartyOperations.class))
                    .isInstanceOf(VerificationPasskeyOperations.class);
            assertThat(context).hasSingleBean(PublicKeyCredentialUserEntityRepository.class)
                    .hasSingleBean(UserCredentialRepository.class)
                    .hasSingleBean(PublicKeyCredentialCreationOptionsRepository.class)
                    .hasSingleBean(PublicKeyCredentialRequestOptionsRepository.class);
        });
    }

    @Test
    void eachBeanBacksOffForTheApplicationsOwn() {
        MapUserCredentialRepository own = new MapUserCredentialRepository();
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY).withBean(UserCredentialRepository.class, () -> own)
                .run(context -> {
                    assertThat(context.getBean(UserCredentialRepository.class)).isSameAs(own);
                    assertThat(context).hasSingleBean(WebAuthnRelyingPartyOperations.class);
                });
    }

    @Test
    void nothingWithoutLoginAccountsOrWithoutSpringsWebAuthnModule() {
        web.run(context -> assertThat(context).doesNotHaveBean(WebAuthnRelyingPartyOperations.class)
                .doesNotHaveBean(UserCredentialRepository.class));
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY)
                .withClassLoader(new FilteredClassLoader(WebAuthnRelyingPartyOperations.class))
                .run(context -> assertThat(context).doesNotHaveBean(PublicKeyCredentialRequestOptionsRepository.class));
    }

    @Test
    void passkeysAreOnByTheSettingsRuleOffOnDynamoDbWithoutAnRpId() {
        ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(WhenOn.class);
        runner.run(context -> assertThat(context).hasBean("on"));
        runner.withPropertyValues("verification.store=dynamodb")
                .run(context -> assertThat(context).doesNotHaveBean("on"));
        runner.withPropertyValues("verification.store=dynamodb", "verification.passkeys.rp-id=example.com",
                "verification.passkeys.origins=https://example.com").run(context -> assertThat(context).hasBean("on"));
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(PasskeysEnabled.class)
    static class WhenOn {
        @Bean
        String on() {
            return "on";
        }
    }
}

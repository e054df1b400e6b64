package dev.verificationservice.spring.security;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.spring.core.PasskeysEnabled;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.webauthn.authentication.PublicKeyCredentialRequestOptionsRepository;
import org.springframework.security.web.webauthn.management.PublicKeyCredentialUserEntityRepository;
import org.springframework.security.web.webauthn.management.UserCredentialRepository;
import org.springframework.security.web.webauthn.management.WebAuthnRelyingPartyOperations;
import org.springframework.security.web.webauthn.registration.PublicKeyCredentialCreationOptionsRepository;

/**
 * Spring Security's passkeys ({@code webAuthn()}) on this store, when the application has Spring Security's WebAuthn
 * module, says how its usernames map onto the store's users ({@link LoginAccounts}) and passkeys are on: the relying
 * party ({@link VerificationPasskeyOperations}), the user-entity and credential repositories, and the creation- and
 * request-options repositories, each backing off for the application's own bean. The RP ID and origins are the
 * starter's ({@code verification.passkeys.*}), not {@code webAuthn().rpId(...)}'s.
 */
@AutoConfiguration(after = VerificationAutoConfiguration.class)
@ConditionalOnClass({WebAuthnRelyingPartyOperations.class, DefaultSecurityFilterChain.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean({LoginAccounts.class, Verification.class})
@Conditional(PasskeysEnabled.class)
@EnableConfigurationProperties(LoginProperties.class)
public class PasskeyLoginAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public WebAuthnRelyingPartyOperations verificationPasskeyOperations(Verification verification,
                                                                        VerificationStore store,
                                                                        VerificationSettings settings,
                                                                        LoginAccounts accounts) {
        return new VerificationPasskeyOperations(verification.passkeys(), store.passkeys(),
                settings.passkeys().orElseThrow(), new PasskeyUsers(accounts));
    }

    @Bean
    @ConditionalOnMissingBean
    public PublicKeyCredentialUserEntityRepository verificationPasskeyUserEntities(Verification verification,
                                                                                  VerificationStore store,
                                                                                  LoginAccounts accounts) {
        return new StorePasskeyRepositories(store.passkeys(), verification.passkeys(), new PasskeyUsers(accounts))
                .userEntities();
    }

    @Bean
    @ConditionalOnMissingBean
    public UserCredentialRepository verificationPasskeyCredentials(Verification verification, VerificationStore store,
                                                                   LoginAccounts accounts) {
        return new StorePasskeyRepositories(store.passkeys(), verification.passkeys(), new PasskeyUsers(accounts))
                .credentials();
    }

    @Bean
    @ConditionalOnMissingBean
    public PublicKeyCredentialCreationOptionsRepository verificationPasskeyCreationOptions(
            VerificationStore store, VerificationSettings settings, LoginAccounts accounts, Clock clock,
            LoginProperties login) {
        return options(store, settings, accounts, clock, login).creation();
    }

    @Bean
    @ConditionalOnMissingBean
    public PublicKeyCredentialRequestOptionsRepository verificationPasskeyRequestOptions(
            VerificationStore store, VerificationSettings settings, LoginAccounts accounts, Clock clock,
            LoginProperties login) {
        return options(store, settings, accounts, clock, login).request();
    }

    /** Gives the chains' sign-in filters the request-options repository (Spring Security 7.0 does not look it up). */
    @Bean
    public static BeanPostProcessor verificationPasskeyFilterChains(
            ObjectProvider<PublicKeyCredentialRequestOptionsRepository> requestOptions) {
        return new PasskeyFilterChains(requestOptions);
    }

    private static StoreOptionsRepositories options(VerificationStore store, VerificationSettings settings,
                                                    LoginAccounts accounts, Clock clock, LoginProperties login) {
        return new StoreOptionsRepositories(store.passkeys(), settings.passkeys().orElseThrow(),
                new PasskeyUsers(accounts), clock, login.cookieSecure());
    }
}

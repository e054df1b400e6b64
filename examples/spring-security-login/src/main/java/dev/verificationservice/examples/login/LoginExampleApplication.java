package dev.verificationservice.examples.login;

import dev.verificationservice.spring.security.DeviceRememberMeServices;
import dev.verificationservice.spring.security.LoginAccount;
import dev.verificationservice.spring.security.LoginAccounts;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Form login, one-time-token login by email, passkeys and remember-me, with Spring Security's own pages, on the
 * starter: the application writes its filter chain, its users and how a username maps to a store user and an
 * address ({@link LoginAccounts}); the starter provides the token service, the link sender, the remember-me
 * services, and the passkeys' relying party and repositories.
 */
@SpringBootApplication
public class LoginExampleApplication {

    /** The example's people (a real application reads its user table). Passwords: the username + "-password". */
    static final Map<String, String> EMAILS = Map.of("alice", "alice@example.com", "bob", "bob@example.com");

    public static void main(String[] args) {
        SpringApplication.run(LoginExampleApplication.class, args);
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http, DeviceRememberMeServices rememberMe) throws Exception {
        http.authorizeHttpRequests(requests -> requests.requestMatchers("/ott/sent", "/outbox").permitAll()
                        .anyRequest().authenticated())
                .formLogin(Customizer.withDefaults())
                .oneTimeTokenLogin(Customizer.withDefaults())
                // The RP ID and origins are the starter's (verification.passkeys.*), as is every challenge.
                .webAuthn(Customizer.withDefaults())
                .rememberMe(remember -> remember.rememberMeServices(rememberMe));
        return http.build();
    }

    /**
     * Spring Security's delegating encoder ({@code {bcrypt}} for new hashes). For an unknown username Spring hashes
     * the given password with this encoder anyway, so the demo passwords are stored hashed with it too: stored as
     * {@code {noop}} a known username would answer faster than an unknown one and tell which names exist.
     */
    @Bean
    PasswordEncoder passwordEncoder() {
        return PasswordEncoderFactories.createDelegatingPasswordEncoder();
    }

    @Bean
    UserDetailsService users(PasswordEncoder passwordEncoder) {
        InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
        EMAILS.keySet().forEach(name -> users.createUser(User.withUsername(name)
                .password(passwordEncoder.encode(name + "-password")).roles("USER").build()));
        return users;
    }

    /** Usernames here are of the store's alphabet, so each is its own user id. */
    @Bean
    LoginAccounts loginAccounts() {
        return new LoginAccounts() {
            @Override
            public Optional<LoginAccount> findByUsername(String username) {
                return Optional.ofNullable(EMAILS.get(username)).map(email -> new LoginAccount(username, email));
            }

            @Override
            public Optional<String> usernameOf(String userId) {
                return EMAILS.containsKey(userId) ? Optional.of(userId) : Optional.empty();
            }
        };
    }
}

package dev.verificationservice.spring.security.passkeyapp;

import dev.verificationservice.spring.security.LoginAccount;
import dev.verificationservice.spring.security.LoginAccounts;
import java.security.Principal;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Security application with passkeys as a team would write it: {@code webAuthn()} with Spring's defaults,
 * its users, and how a username maps onto a store user ({@link LoginAccounts}); the starter gives Spring its
 * relying party and repositories on the store.
 */
@SpringBootApplication
public class PasskeyHostApplication {

    /** Username to store user id: never the same string, so a test sees which one went where. */
    static final Map<String, String> USER_IDS = Map.of("alice", "user-alice", "bob", "user-bob", "carol",
            "user-carol");

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                .formLogin(Customizer.withDefaults())
                .webAuthn(Customizer.withDefaults());
        return http.build();
    }

    @RestController
    static class Home {
        @GetMapping("/")
        String home(Principal principal) {
            return principal.getName();
        }
    }

    @Bean
    UserDetailsService users() {
        InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
        USER_IDS.keySet().forEach(name -> users.createUser(User.withUsername(name).password("{noop}unused-" + name)
                .roles("USER").build()));
        return users;
    }

    @Bean
    LoginAccounts loginAccounts() {
        return new LoginAccounts() {
            @Override
            public Optional<LoginAccount> findByUsername(String username) {
                return Optional.ofNullable(USER_IDS.get(username))
                        .map(userId -> new LoginAccount(userId, username + "@example.com"));
            }

            @Override
            public Optional<String> usernameOf(String userId) {
                return USER_IDS.entrySet().stream().filter(entry -> entry.getValue().equals(userId))
                        .map(Map.Entry::getKey).findFirst();
            }
        };
    }
}

package dev.verificationservice.spring.security.loginapp;

import dev.verificationservice.spring.security.LoginAccount;
import dev.verificationservice.spring.security.LoginAccounts;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A Spring Security application as a team would write it: form login and {@code oneTimeTokenLogin()} with nothing
 * but its users and a {@link LoginAccounts} bean; the starter provides the token service and the link sender.
 */
@SpringBootApplication
public class LoginHostApplication {

    /** The application's people: username, store user id, address. */
    static final Map<String, LoginAccount> ACCOUNTS = Map.of(
            "alice", new LoginAccount("user-alice", "alice@example.com"),
            "bob", new LoginAccount("user-bob", "bob@example.com"),
            "carol", new LoginAccount("user-carol", "carol@example.com"));

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(requests -> requests.requestMatchers("/ott/sent").permitAll()
                        .anyRequest().authenticated())
                .formLogin(Customizer.withDefaults())
                .oneTimeTokenLogin(Customizer.withDefaults());
        return http.build();
    }

    @Bean
    UserDetailsService users() {
        InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
        ACCOUNTS.keySet().forEach(name -> users.createUser(User.withUsername(name).password("{noop}unused-" + name)
                .roles("USER").build()));
        return users;
    }

    @Bean
    RecordingAccounts loginAccounts() {
        return new RecordingAccounts();
    }

    /** The application's mapping, which also notes the thread each lookup ran on. */
    public static final class RecordingAccounts implements LoginAccounts {

        final Map<String, Thread> lookedUpOn = new ConcurrentHashMap<>();

        @Override
        public Optional<LoginAccount> findByUsername(String username) {
            lookedUpOn.put(username, Thread.currentThread());
            return Optional.ofNullable(ACCOUNTS.get(username));
        }

        @Override
        public Optional<String> usernameOf(String userId) {
            return ACCOUNTS.entrySet().stream().filter(entry -> entry.getValue().userId().equals(userId))
                    .map(Map.Entry::getKey).findFirst();
        }
    }
}

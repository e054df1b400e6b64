package dev.verificationservice.spring.security.loginapp;

import dev.verificationservice.spring.security.DeviceRememberMeServices;
import dev.verificationservice.spring.security.LoginAccount;
import dev.verificationservice.spring.security.LoginAccounts;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Security application as a team would write it: form login, {@code oneTimeTokenLogin()}, passkeys
 * ({@code webAuthn()}) and remember-me with nothing but its users and a {@link LoginAccounts} bean; the starter
 * provides the token service, the link sender, the remember-me services and the passkeys' relying party and
 * repositories.
 */
@SpringBootApplication
public class LoginHostApplication {

    /** Accounts a flood names, more of them than one client address may have links waiting for. */
    static final List<String> FLOOD_ACCOUNTS = IntStream.rangeClosed(1, 12)
            .mapToObj(n -> String.format("flood-%02d", n)).toList();

    /** The application's people: username, store user id, address. */
    static final Map<String, LoginAccount> ACCOUNTS = Stream.concat(Stream.of("alice", "bob", "carol", "dave", "erin"),
                    FLOOD_ACCOUNTS.stream())
            .collect(Collectors.toUnmodifiableMap(name -> name,
                    name -> new LoginAccount("user-" + name, name + "@example.com")));

    @Bean
    SecurityFilterChain security(HttpSecurity http, DeviceRememberMeServices rememberMe) throws Exception {
        http.authorizeHttpRequests(requests -> requests.requestMatchers("/ott/sent").permitAll()
                        .anyRequest().authenticated())
                .formLogin(Customizer.withDefaults())
                .oneTimeTokenLogin(Customizer.withDefaults())
                .webAuthn(Customizer.withDefaults())
                .rememberMe(remember -> remember.rememberMeServices(rememberMe));
        return http.build();
    }

    /** The page behind the login: who is logged in. */
    @RestController
    static class Home {
        @GetMapping("/")
        String home(Principal principal) {
            return principal.getName();
        }
    }

    @Bean
    RecordingUsers users() {
        InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
        // dave has an address, but his account is disabled: he gets no link.
        ACCOUNTS.keySet().forEach(name -> users.createUser(User.withUsername(name).password("{noop}unused-" + name)
                .disabled(name.equals("dave")).roles("USER").build()));
        return new RecordingUsers(users);
    }

    /** The application's users, noting the thread each lookup ran on (the last one per username). */
    public static final class RecordingUsers implements UserDetailsService {

        final Map<String, Thread> lookedUpOn = new ConcurrentHashMap<>();
        /** The users themselves: a test disables one as an administrator would. */
        final InMemoryUserDetailsManager users;

        RecordingUsers(InMemoryUserDetailsManager users) {
            this.users = users;
        }

        @Override
        public UserDetails loadUserByUsername(String username) {
            lookedUpOn.put(username, Thread.currentThread());
            return users.loadUserByUsername(username);
        }
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

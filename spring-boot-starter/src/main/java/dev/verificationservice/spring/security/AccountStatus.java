package dev.verificationservice.spring.security;

import java.util.Optional;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;

/**
 * Whether the application's users (when it has a {@code UserDetailsService}) know a username as one that may log in
 * now: enabled, not locked, not expired. The link sender asks before it sends a link, and the token service again
 * when a link is used, so a link sent before the account was disabled logs no one in (Spring's one-time-token
 * provider loads the user but does not check its status).
 */
final class AccountStatus {

    private final Optional<UserDetailsService> users;

    AccountStatus(Optional<UserDetailsService> users) {
        this.users = users;
    }

    /** True without a {@code UserDetailsService}: {@link LoginAccounts} alone then decides who has an account. */
    boolean mayLogIn(String username) {
        if (users.isEmpty()) {
            return true;
        }
        try {
            UserDetails user = users.get().loadUserByUsername(username);
            return user.isEnabled() && user.isAccountNonLocked() && user.isAccountNonExpired();
        } catch (UsernameNotFoundException unknown) {
            return false;
        }
    }
}

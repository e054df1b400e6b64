package dev.verificationservice.spring.security;

import java.util.Optional;

/**
 * How the application's usernames map onto this store's users: the one bean an application adds for one-time-token
 * login. A {@code UserDetailsService} alone cannot do it: it has no delivery address, and the store's user ids
 * follow the core's alphabet (a username with other characters maps to a digest of it, or to the application's own
 * id). Called on the request thread, when a link is asked for (for every username, after the application's
 * {@code UserDetailsService}) and when a link is used.
 */
public interface LoginAccounts {

    /** The account a login link for {@code username} goes to; empty when there is none (nothing is then sent). */
    Optional<LoginAccount> findByUsername(String username);

    /** The username of a store user id, the reverse of {@link #findByUsername}: whom a used link logs in. */
    Optional<String> usernameOf(String userId);
}

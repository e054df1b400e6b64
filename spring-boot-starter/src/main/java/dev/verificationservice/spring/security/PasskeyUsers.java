package dev.verificationservice.spring.security;

import java.util.Optional;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * Spring's usernames as the store's users for passkeys, through the application's {@link LoginAccounts}, as for
 * login links. The store keeps no index from a WebAuthn user handle to its user, so the repositories answer a
 * lookup by user handle for the signed-in user only: every such lookup in Spring Security's flow is about them.
 */
final class PasskeyUsers {

    private final LoginAccounts accounts;
    private final AuthenticationTrustResolver trust = new AuthenticationTrustResolverImpl();

    PasskeyUsers(LoginAccounts accounts) {
        this.accounts = accounts;
    }

    /** The store user id of a username, if the application has an account for it. */
    Optional<String> userId(String username) {
        return username == null ? Optional.empty() : accounts.findByUsername(username).map(LoginAccount::userId);
    }

    /** The username of a store user id. */
    Optional<String> username(String userId) {
        return accounts.usernameOf(userId);
    }

    /** The store user id of this authentication, when it is a signed-in user (not anonymous). */
    Optional<String> userId(Authentication authentication) {
        return trust.isAuthenticated(authentication) ? userId(authentication.getName()) : Optional.empty();
    }

    /** The signed-in user of the request this thread serves, as a store user id. */
    Optional<String> signedIn() {
        return userId(SecurityContextHolder.getContext().getAuthentication());
    }
}

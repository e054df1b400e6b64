package dev.verificationservice.spring.security;

import java.time.Duration;
import java.time.Instant;
import org.springframework.security.authentication.ott.OneTimeToken;

/**
 * What {@link VerificationOneTimeTokenService#generate} answers: a link not made yet. The link is made, limited,
 * stored and sent by {@link LoginLinkSender} off the request thread, so the answer is the same whether the
 * username exists or not; this object therefore holds no token ({@link #getTokenValue()} is empty) and
 * says nothing about the account. {@code lifetime} is the one the link will have.
 */
record PendingLoginLink(String username, Duration lifetime, Instant expiresAt) implements OneTimeToken {

    @Override
    public String getTokenValue() {
        return "";
    }

    @Override
    public String getUsername() {
        return username;
    }

    @Override
    public Instant getExpiresAt() {
        return expiresAt;
    }
}

package dev.verificationservice.spring.security;

import java.util.Locale;
import java.util.Optional;

/**
 * One person who may log in by link.
 *
 * @param userId the store's user id (the core's alphabet)
 * @param email  where the link goes
 * @param locale the language of the message; empty: the service chooses
 */
public record LoginAccount(String userId, String email, Optional<Locale> locale) {

    public LoginAccount {
        locale = locale == null ? Optional.empty() : locale;
    }

    public LoginAccount(String userId, String email) {
        this(userId, email, Optional.empty());
    }

    @Override
    public String toString() {
        return "LoginAccount[userId=" + userId + "]";
    }
}

package dev.verificationservice.spring.security;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One-time-token login on this store ({@code verification.login.*}).
 *
 * @param context what a login link approves: shown in the message, and the link logs in only with it (a link the
 *                application sent for anything else never does)
 * @param sentUrl where the browser goes after asking for a link, whether the username exists or not
 * @param linkUrl the URL a login link opens ({@code {code}} is replaced by the token): the application's
 *                {@code /login/ott} page; {@code VERIFICATION_LINK_URL} stays the other types' link
 * @param cookieSecure whether the starter's cookies (remember-me, the passkey challenge's name) are {@code Secure};
 *                     turn it off only for plain-HTTP development
 */
@ConfigurationProperties(prefix = "verification.login")
public record LoginProperties(@DefaultValue("Sign in") String context, @DefaultValue("/ott/sent") String sentUrl,
                              @DefaultValue(DEFAULT_LINK_URL) String linkUrl,
                              @DefaultValue("true") boolean cookieSecure) {

    /** The default {@code VERIFICATION_LOGIN_LINK_URL}: Spring Security's login page for a token. */
    public static final String DEFAULT_LINK_URL = "http://localhost:8080/login/ott?token={code}";
}

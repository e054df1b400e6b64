package dev.verificationservice.spring.security;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One-time-token login on this store ({@code verification.login.*}).
 *
 * @param context what a login link approves: shown in the message, and the link logs in only with it (a link the
 *                application sent for anything else never does)
 * @param sentUrl where the browser goes after asking for a link, whether the username exists or not
 */
@ConfigurationProperties(prefix = "verification.login")
public record LoginProperties(@DefaultValue("Sign in") String context, @DefaultValue("/ott/sent") String sentUrl) {
}

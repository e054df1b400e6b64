package dev.verificationservice.spring.security;

import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.ott.OneTimeToken;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.DefaultRedirectStrategy;
import org.springframework.security.web.RedirectStrategy;
import org.springframework.security.web.authentication.ott.OneTimeTokenGenerationSuccessHandler;

/**
 * Sends the login link Spring Security's generate filter asked for, off the request thread: the answer (a
 * redirect to {@link LoginProperties#sentUrl()}) is the same and as fast for a username that exists, one that
 * does not, and one over a limit. Off the thread, the username is looked up (the application's
 * {@code UserDetailsService} when it has one, then {@link LoginAccounts}); a username with no account, or a
 * disabled, locked or expired one, sends and audits nothing; for an account the core issues a {@code LOGIN} link
 * through every send limit and the resend cooldown of that type (a refused request sends nothing) and writes
 * {@code CODE_SENT}. A username longer than {@value #MAX_USERNAME_LENGTH} characters gets the same answer and is not
 * even queued: no one's account has such a name, and it must not take a place in the bounded queue.
 */
public final class LoginLinkSender implements OneTimeTokenGenerationSuccessHandler {

    /** The longest username a link is looked up for; a longer one is answered as one without an account. */
    public static final int MAX_USERNAME_LENGTH = 256;

    private static final Logger LOG = LoggerFactory.getLogger(LoginLinkSender.class);

    private final CodeService codes;
    private final LoginAccounts accounts;
    private final LoginProperties properties;
    private final Executor executor;
    private final AccountStatus status;
    private final RedirectStrategy redirects = new DefaultRedirectStrategy();

    /**
     * @param users the application's users, when it has a {@code UserDetailsService}: a username it does not
     *              know, or knows as disabled, locked or expired, is treated as one without an account
     */
    public LoginLinkSender(CodeService codes, LoginAccounts accounts, LoginProperties properties, Executor executor,
                           Optional<UserDetailsService> users) {
        this.codes = codes;
        this.accounts = accounts;
        this.properties = properties;
        this.executor = executor;
        this.status = new AccountStatus(users);
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, OneTimeToken token)
            throws IOException {
        ClientContext client = Clients.of(request);
        String username = token.getUsername();
        // Another token service's token (the application's own) has no lifetime of ours: the store's then.
        Optional<Duration> lifetime = token instanceof PendingLoginLink pending ? Optional.of(pending.lifetime())
                : Optional.empty();
        if (username != null && username.length() <= MAX_USERNAME_LENGTH) {
            executor.execute(() -> send(username, lifetime, client));
        }
        redirects.sendRedirect(request, response, properties.sentUrl());
    }

    /** The link for {@code username}, if it has an account; empty when it has none (nothing sent or audited). */
    Optional<IssueResult> send(String username, Optional<Duration> lifetime, ClientContext client) {
        try {
            if (!status.mayLogIn(username)) {
                return Optional.empty();
            }
            Optional<IssueResult> result = accounts.findByUsername(username).map(account -> {
                CodeRequest request = new CodeRequest(account.userId(), CodeType.LOGIN,
                        DeliveryMethod.EMAIL, account.email(), Optional.of(CodeFormat.LINK), Optional.empty(), client,
                        account.locale(), Optional.of(properties.context()));
                return lifetime.map(duration -> codes.issue(request, duration)).orElseGet(() -> codes.issue(request));
            });
            result.filter(IssueResult.RateLimited.class::isInstance)
                    .ifPresent(refused -> LOG.info("A login link was not sent: {}", refused));
            return result;
        } catch (RuntimeException e) {
            // No one waits for this thread: the failure is logged (never the address or the username's account).
            LOG.warn("A login link could not be sent: {}", e.getClass().getSimpleName());
            return Optional.empty();
        }
    }
}

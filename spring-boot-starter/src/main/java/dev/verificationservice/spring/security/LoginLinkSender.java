package dev.verificationservice.spring.security;

import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.ClientAddresses;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.spring.logging.RefusalLog;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.ott.OneTimeToken;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.DefaultRedirectStrategy;
import org.springframework.security.web.RedirectStrategy;
import org.springframework.security.web.authentication.ott.OneTimeTokenGenerationSuccessHandler;

/**
 * Sends the login link Spring Security's generate filter asked for: every request gets the same answer (a
 * redirect to {@link LoginProperties#sentUrl()}), whether its username has an account, is over a limit or was not
 * sent at all. On the request thread, the username is looked up, with the same calls whatever the answer (the
 * application's {@code UserDetailsService} when it has one, and {@link LoginAccounts}); a username with no account,
 * or a disabled, locked or expired one, sends and audits nothing and takes no place in the bounded queue. A link
 * for an account is handed to the link threads only while it has a place ({@link WaitingLinks}: one per account and
 * client address, {@value #WAITING_PER_ADDRESS} per client address); off the request thread the core issues a
 * {@code LOGIN} link through every send limit and the resend cooldown of that type (a refused request sends
 * nothing) and writes {@code CODE_SENT}. A username longer than {@value #MAX_USERNAME_LENGTH} characters is not even
 * looked up: no one's account has such a name. Whatever is not sent is counted by kind in a {@link RefusalLog},
 * never logged one by one and never with a username, an address or a link.
 */
public final class LoginLinkSender implements OneTimeTokenGenerationSuccessHandler {

    /** The longest username a link is looked up for; a longer one is answered as one without an account. */
    public static final int MAX_USERNAME_LENGTH = 256;
    /** The links one client address may have waiting for the link threads at once. */
    public static final int WAITING_PER_ADDRESS = 5;

    /** What the refusal log counts (besides the core's limits, by action, and failures, by class): no account. */
    public static final String NO_ACCOUNT = "no account";
    /** The account had a link waiting from the same client address already. */
    public static final String ACCOUNT_WAITING = "a link of the account waiting from the address";
    /** The client address had {@value #WAITING_PER_ADDRESS} links waiting already. */
    public static final String ADDRESS_FULL = "every place of the address taken";
    /** The link threads' queue was full. */
    public static final String QUEUE_FULL = "the queue full";

    private static final Logger LOG = LoggerFactory.getLogger(LoginLinkSender.class);
    /** The address of a request without one: such requests share its places. */
    private static final String NO_ADDRESS = "no address";

    private final CodeService codes;
    private final LoginAccounts accounts;
    private final LoginProperties properties;
    private final Executor executor;
    private final AccountStatus status;
    private final WaitingLinks waiting = new WaitingLinks(WAITING_PER_ADDRESS);
    private final RefusalLog refusals;
    private final RedirectStrategy redirects = new DefaultRedirectStrategy();

    /**
     * @param executor runs each link's work; one that refuses a task ({@link RejectedExecutionException}, as a full
     *                 bounded queue does) leaves that link unsent
     * @param users    the application's users, when it has a {@code UserDetailsService}: a username it does not
     *                 know, or knows as disabled, locked or expired, is treated as one without an account
     * @param clock    the clock of the refusal log's minutes
     */
    public LoginLinkSender(CodeService codes, LoginAccounts accounts, LoginProperties properties, Executor executor,
                           Optional<UserDetailsService> users, Clock clock) {
        this.codes = codes;
        this.accounts = accounts;
        this.properties = properties;
        this.executor = executor;
        this.status = new AccountStatus(users);
        this.refusals = new RefusalLog(clock, LOG, "Login links not sent");
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, OneTimeToken token)
            throws IOException {
        ClientContext client = Clients.of(request);
        String username = token.getUsername();
        // Another token service's token (the application's own) has no lifetime of ours: the store's then.
        Optional<Duration> lifetime = token instanceof PendingLoginLink pending ? Optional.of(pending.lifetime())
                : Optional.empty();
        lookUp(username).ifPresent(account -> handOver(account, lifetime, client));
        redirects.sendRedirect(request, response, properties.sentUrl());
    }

    /**
     * The account of {@code username} if it may log in, asking the application the same for every username; when
     * empty, counted as no account, or as a failed lookup.
     */
    private Optional<LoginAccount> lookUp(String username) {
        if (username == null || username.length() > MAX_USERNAME_LENGTH) {
            refusals.refused(NO_ACCOUNT);
            return Optional.empty();
        }
        Optional<LoginAccount> account;
        try {
            boolean mayLogIn = status.mayLogIn(username);
            account = accounts.findByUsername(username).filter(found -> mayLogIn);
        } catch (RuntimeException e) {
            failed(e);
            return Optional.empty();
        }
        if (account.isEmpty()) {
            refusals.refused(NO_ACCOUNT);
        }
        return account;
    }

    /** Hands the account's link to the link threads if its client has a place for it. */
    private void handOver(LoginAccount account, Optional<Duration> lifetime, ClientContext client) {
        String address = client.ipAddress().map(ClientAddresses::subject).orElse(NO_ADDRESS);
        Optional<WaitingLinks.Refusal> refused = waiting.take(account.userId(), address);
        if (refused.isPresent()) {
            refusals.refused(refused.get() == WaitingLinks.Refusal.ACCOUNT_WAITING ? ACCOUNT_WAITING : ADDRESS_FULL);
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    send(account, lifetime, client);
                } finally {
                    waiting.release(account.userId(), address);
                }
            });
        } catch (RejectedExecutionException full) {
            waiting.release(account.userId(), address);
            refusals.refused(QUEUE_FULL);
        }
    }

    private void send(LoginAccount account, Optional<Duration> lifetime, ClientContext client) {
        try {
            CodeRequest request = new CodeRequest(account.userId(), CodeType.LOGIN, DeliveryMethod.EMAIL,
                    account.email(), Optional.of(CodeFormat.LINK), Optional.empty(), client, account.locale(),
                    Optional.of(properties.context()));
            IssueResult result = lifetime.map(duration -> codes.issue(request, duration))
                    .orElseGet(() -> codes.issue(request));
            if (result instanceof IssueResult.RateLimited limited) {
                refusals.refused("rate-limited " + limited.action());
            }
        } catch (RuntimeException e) {
            // No one waits for this thread: the failure is counted.
            failed(e);
        }
    }

    /** A failure counted by its class, never its message, which may hold the username or the address. */
    private void failed(RuntimeException e) {
        refusals.refused("failed: " + e.getClass().getSimpleName());
    }
}

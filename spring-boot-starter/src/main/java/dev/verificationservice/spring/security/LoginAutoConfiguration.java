package dev.verificationservice.spring.security;

import dev.verificationservice.Verification;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.security.authentication.ott.OneTimeTokenService;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.authentication.RememberMeServices;
import org.springframework.security.web.authentication.ott.OneTimeTokenGenerationSuccessHandler;

/**
 * Spring Security's one-time-token login and remember-me on this store, when the application has Spring Security's
 * web module and says how its usernames map onto the store's users (a {@link LoginAccounts} bean).
 * {@code oneTimeTokenLogin()} finds the token service and the link sender by type; every bean backs off when the
 * application declares its own.
 */
@AutoConfiguration(after = VerificationAutoConfiguration.class)
@ConditionalOnClass({OneTimeTokenService.class, OneTimeTokenGenerationSuccessHandler.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean({LoginAccounts.class, Verification.class})
@EnableConfigurationProperties(LoginProperties.class)
public class LoginAutoConfiguration {

    /** The bean that sends login links: a thread of its own, so no request waits for the store or the channel. */
    public static final String EXECUTOR = "verificationLoginLinkExecutor";
    /** Login links that may wait for the link sender's threads. */
    public static final int QUEUED_LINKS = 1000;

    @Bean
    @ConditionalOnMissingBean
    public OneTimeTokenService verificationOneTimeTokenService(Verification verification, LoginAccounts accounts,
                                                               ObjectProvider<UserDetailsService> users,
                                                               LoginProperties login, Clock clock,
                                                               VerificationProperties properties) {
        return new VerificationOneTimeTokenService(verification.codes(), accounts,
                Optional.ofNullable(users.getIfUnique()), login, clock, properties.codeTtl());
    }

    @Bean
    @ConditionalOnMissingBean
    public OneTimeTokenGenerationSuccessHandler verificationLoginLinkSender(
            Verification verification, LoginAccounts accounts, LoginProperties login,
            @Qualifier(EXECUTOR) Executor executor, ObjectProvider<UserDetailsService> users, Clock clock) {
        return new LoginLinkSender(verification.codes(), accounts, login, executor,
                Optional.ofNullable(users.getIfUnique()), clock);
    }

    /**
     * Remember-me on remembered devices, when the application has its users in a {@code UserDetailsService}; the
     * application hands it to {@code rememberMe(remember -> remember.rememberMeServices(services))}.
     */
    @Bean
    @ConditionalOnBean(UserDetailsService.class)
    @ConditionalOnMissingBean(RememberMeServices.class)
    public DeviceRememberMeServices verificationRememberMeServices(Verification verification, LoginAccounts accounts,
                                                                  UserDetailsService users, Clock clock,
                                                                  VerificationProperties properties,
                                                                  LoginProperties login) {
        DeviceRememberMeServices services = new DeviceRememberMeServices(verification.devices(), accounts, users,
                properties.deviceTtl(), clock);
        // Secure unless turned off: Spring's default follows the request, and behind a TLS-terminating proxy that
        // forwards plain HTTP the cookie would then go out without it.
        services.setUseSecureCookie(login.cookieSecure());
        return services;
    }

    /**
     * Two threads and at most {@value #QUEUED_LINKS} links waiting: a flood of requests (which the limits only
     * count once a link's turn comes) cannot fill the memory; a link that finds the queue full is refused
     * ({@link java.util.concurrent.RejectedExecutionException}), not sent, and its request gets the same answer as
     * every other.
     */
    @Bean(name = EXECUTOR, destroyMethod = "shutdown")
    @ConditionalOnMissingBean(name = EXECUTOR)
    public ExecutorService verificationLoginLinkExecutor() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUED_LINKS), task -> {
            Thread thread = new Thread(task, "verification-login-link-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }
}

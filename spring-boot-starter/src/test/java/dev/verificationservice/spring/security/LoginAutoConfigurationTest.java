package dev.verificationservice.spring.security;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.Cookie;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.ott.InMemoryOneTimeTokenService;
import org.springframework.security.authentication.ott.OneTimeTokenService;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.authentication.RememberMeServices;
import org.springframework.security.web.authentication.ott.OneTimeTokenGenerationSuccessHandler;

/** When the Spring Security beans are made, and that each backs off for the application's own. */
class LoginAutoConfigurationTest {

    private final WebApplicationContextRunner web = LoginContexts.web();

    @Test
    void withLoginAccountsAndUsersEveryBeanIsMade() {
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY)
                .withBean(UserDetailsService.class, InMemoryUserDetailsManager::new).run(context -> {
                    assertThat(context).hasSingleBean(VerificationOneTimeTokenService.class)
                            .hasSingleBean(LoginLinkSender.class).hasSingleBean(DeviceRememberMeServices.class);
                    assertThat(context.getBean(OneTimeTokenGenerationSuccessHandler.class))
                            .isInstanceOf(LoginLinkSender.class);
                });
    }

    @Test
    void theRememberMeCookieIsSecureEvenOverPlainHttpUnlessTurnedOff() {
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY)
                .withBean(UserDetailsService.class, InMemoryUserDetailsManager::new).run(context -> {
                    MockHttpServletRequest http = new MockHttpServletRequest();
                    assertThat(droppedCookie(context.getBean(DeviceRememberMeServices.class), http).getSecure())
                            .as("Spring's default would follow the request").isTrue();
                });
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY)
                .withBean(UserDetailsService.class, InMemoryUserDetailsManager::new)
                .withPropertyValues("verification.login.cookie-secure=false").run(context -> {
                    MockHttpServletRequest https = new MockHttpServletRequest();
                    https.setSecure(true);
                    assertThat(droppedCookie(context.getBean(DeviceRememberMeServices.class), https).getSecure())
                            .isFalse();
                });
    }

    /** The cookie a logout sets to drop the remember-me cookie: it carries the same flags as the one set on login. */
    private static Cookie droppedCookie(DeviceRememberMeServices services, MockHttpServletRequest request) {
        MockHttpServletResponse response = new MockHttpServletResponse();
        services.logout(request, response, null);
        return response.getCookie("remember-me");
    }

    @Test
    void theLinkSendersQueueIsBoundedAndAFullOneRefusesTheLink() {
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY).run(context -> {
            ExecutorService executor = context.getBean(LoginAutoConfiguration.EXECUTOR, ExecutorService.class);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger ran = new AtomicInteger();
            Runnable blocked = () -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ran.incrementAndGet();
            };
            int accepted = 2 + LoginAutoConfiguration.QUEUED_LINKS;
            int refused = 0;
            for (int i = 0; i < accepted + 5; i++) {
                try {
                    executor.execute(blocked);
                } catch (RejectedExecutionException full) {
                    refused++;
                }
            }
            release.countDown();
            executor.shutdown();
            assertThat(executor.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
            assertThat(refused).as("the sender learns which links found the queue full").isEqualTo(5);
            assertThat(ran).as("two running, the queue full, five refused").hasValue(accepted);
        });
    }

    @Test
    void withoutLoginAccountsNothingIsMade() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OneTimeTokenService.class)
                .doesNotHaveBean(OneTimeTokenGenerationSuccessHandler.class).doesNotHaveBean(RememberMeServices.class));
    }

    @Test
    void theApplicationsOwnTokenServiceWinsAndWithoutUsersThereIsNoRememberMe() {
        web.withBean(LoginAccounts.class, () -> LoginContexts.NOBODY)
                .withBean(OneTimeTokenService.class, InMemoryOneTimeTokenService::new).run(context -> {
                    assertThat(context).getBean(OneTimeTokenService.class).isInstanceOf(InMemoryOneTimeTokenService.class);
                    assertThat(context).doesNotHaveBean(RememberMeServices.class);
                });
    }

    @Test
    void outsideAServletApplicationNothingIsMade() {
        new ApplicationContextRunner().withConfiguration(LoginContexts.AUTO_CONFIGURATIONS)
                .withPropertyValues(LoginContexts.dataDirectory())
                .withBean(LoginAccounts.class, () -> LoginContexts.NOBODY)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OneTimeTokenService.class));
    }
}
